CREATE TABLE "console_test_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"category" text NOT NULL,
	"url" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seq" bigserial NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_test_deliveries_seq" ON "console_test_deliveries" USING btree ("seq");