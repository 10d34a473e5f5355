CREATE TABLE "import_verification_findings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"verification_id" text NOT NULL,
	"kind" text NOT NULL,
	"row_index" integer,
	"key" text NOT NULL,
	"field" text,
	"reason" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"scope" text NOT NULL,
	"app_id" text,
	"state" text DEFAULT 'running' NOT NULL,
	"sample" integer,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"counts" jsonb DEFAULT '{"matched":0,"missing":0,"extra":0,"different":0}'::jsonb NOT NULL,
	"error" text,
	"claimed_by" text,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "import_verification_findings" ADD CONSTRAINT "import_verification_findings_verification_id_import_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "import_verifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_verifications" ADD CONSTRAINT "import_verifications_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_verification_findings_order" ON "import_verification_findings" USING btree ("verification_id","id");--> statement-breakpoint
CREATE INDEX "import_verifications_job" ON "import_verifications" USING btree ("job_id","created_at");