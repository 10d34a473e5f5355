ALTER TABLE "import_rows" ADD COLUMN "edit" jsonb;--> statement-breakpoint
ALTER TABLE "import_rows" ADD COLUMN "edit_state" text;--> statement-breakpoint
CREATE INDEX "import_rows_edit_pending" ON "import_rows" USING btree ("job_id","resource_key","row_index") WHERE "import_rows"."edit_state" = 'pending';