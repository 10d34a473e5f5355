ALTER TABLE "webhook_attempts" ADD COLUMN "outcome" text DEFAULT 'no_response' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "request_headers" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "response_headers" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "outcome" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "order_key" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "attempt_started_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "webhook_attempts_at" ON "webhook_attempts" USING btree ("at");--> statement-breakpoint
CREATE INDEX "webhook_events_app_outcome_seq" ON "webhook_events" USING btree ("app_id","outcome","seq");--> statement-breakpoint
CREATE INDEX "webhook_events_app_order_key" ON "webhook_events" USING btree ("app_id","order_key","seq");--> statement-breakpoint
CREATE INDEX "webhook_events_created_at" ON "webhook_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_events_pending_seq" ON "webhook_events" USING btree ("seq") WHERE "webhook_events"."status" = 'pending';--> statement-breakpoint
UPDATE "webhook_attempts" SET "outcome" = CASE WHEN "status" IS NULL THEN 'no_response' WHEN "status" BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END;--> statement-breakpoint
UPDATE "webhook_events" e SET "outcome" = CASE
  WHEN e."status" = 'pending' THEN 'pending'
  WHEN e."status" = 'failed' THEN 'no_response'
  ELSE COALESCE((SELECT a."outcome" FROM "webhook_attempts" a WHERE a."event_id" = e."id" AND a."status" IS NOT NULL ORDER BY a."attempt" DESC LIMIT 1), 'delivered')
END;--> statement-breakpoint
UPDATE "webhook_events" SET "order_key" = CASE
  WHEN "payload"::jsonb -> 'direct_call' ->> 'call_id' IS NOT NULL THEN 'direct_call:' || ("payload"::jsonb -> 'direct_call' ->> 'call_id')
  WHEN "payload"::jsonb -> 'room' ->> 'room_id' IS NOT NULL THEN 'room:' || ("payload"::jsonb -> 'room' ->> 'room_id')
  ELSE "id"
END;
