ALTER TABLE "import_jobs" ADD COLUMN "plan_progress" jsonb;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "claimed_until" timestamp with time zone;