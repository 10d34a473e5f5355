ALTER TABLE "import_rows" ADD COLUMN "parent_source_id" text;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN "reactions" jsonb;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN "platform_message_id" bigint;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN "thread_state" text;--> statement-breakpoint
CREATE INDEX "import_rows_thread_pending" ON "import_rows" USING btree ("job_id","resource_key","row_index") WHERE "import_rows"."thread_state" = 'pending';