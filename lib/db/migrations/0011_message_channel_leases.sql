CREATE TABLE "import_channel_leases" (
	"job_id" text NOT NULL,
	"resource_key" text NOT NULL,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	CONSTRAINT "import_channel_leases_job_id_resource_key_pk" PRIMARY KEY("job_id","resource_key")
);
--> statement-breakpoint
DROP INDEX "import_rows_finished";--> statement-breakpoint
ALTER TABLE "import_channel_leases" ADD CONSTRAINT "import_channel_leases_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_rows_pending_messages" ON "import_rows" USING btree ("job_id","resource_key",("body" -> 'timestamp'),"row_index") WHERE "import_rows"."state" = 'pending' and "import_rows"."body" ? 'timestamp';