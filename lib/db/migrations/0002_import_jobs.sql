CREATE TABLE "import_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"resource" text NOT NULL,
	"file_name" text NOT NULL,
	"columns" jsonb NOT NULL,
	"mapping" jsonb NOT NULL,
	"total_rows" integer NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"plan" jsonb,
	"planned_at" timestamp with time zone,
	"rehearsal" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "import_rows" (
	"job_id" text NOT NULL,
	"row_index" integer NOT NULL,
	"values" jsonb NOT NULL,
	"excluded" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"resource_key" text,
	"source_id" text,
	"body" jsonb,
	"follow_ups" jsonb,
	"follow_up_state" text,
	"issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"plan_issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"existed_before" boolean DEFAULT false NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"result_code" integer,
	"result_message" text,
	"next_attempt_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"finished_at" timestamp with time zone,
	CONSTRAINT "import_rows_job_id_row_index_pk" PRIMARY KEY("job_id","row_index")
);
--> statement-breakpoint
ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_jobs_status" ON "import_jobs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "import_rows_state" ON "import_rows" USING btree ("job_id","state","row_index");--> statement-breakpoint
CREATE INDEX "import_rows_finished" ON "import_rows" USING btree ("job_id","finished_at");