ALTER TABLE "import_channel_leases" ADD COLUMN "sent_through_timestamp" jsonb;--> statement-breakpoint
ALTER TABLE "import_channel_leases" ADD COLUMN "sent_through_row" integer;--> statement-breakpoint
ALTER TABLE "import_channel_leases" ADD COLUMN "sent_messages" integer DEFAULT 0 NOT NULL;