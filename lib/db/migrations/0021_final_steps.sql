CREATE TABLE "import_final_steps" (
	"job_id" text NOT NULL,
	"action" text NOT NULL,
	"key" text NOT NULL,
	"resource" text NOT NULL,
	"reason" text NOT NULL,
	"row_index" integer,
	"state" text NOT NULL,
	"result_code" integer,
	"result_message" text,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "import_final_steps_job_id_action_key_pk" PRIMARY KEY("job_id","action","key")
);
--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "options" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "import_final_steps" ADD CONSTRAINT "import_final_steps_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_final_steps_state" ON "import_final_steps" USING btree ("state");