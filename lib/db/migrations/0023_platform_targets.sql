CREATE TABLE "platform_targets" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"app_id" text NOT NULL,
	"chat_base_url" text NOT NULL,
	"calls_base_url" text NOT NULL,
	"sealed_api_token" text NOT NULL,
	"environment" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_sessions" ADD COLUMN "target_id" text;--> statement-breakpoint
ALTER TABLE "console_test_deliveries" ADD COLUMN "target_id" text;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "target_id" text;--> statement-breakpoint
CREATE INDEX "import_jobs_target" ON "import_jobs" USING btree ("target_id","created_at");