CREATE TABLE "webhook_holders" (
	"id" text PRIMARY KEY NOT NULL,
	"alive_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "webhook_events_app_outcome_seq";--> statement-breakpoint
DROP INDEX "webhook_events_pending_seq";--> statement-breakpoint
DROP INDEX "webhook_events_created_at";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "held_by" text;--> statement-breakpoint
CREATE INDEX "webhook_events_app_undelivered_seq" ON "webhook_events" USING btree ("app_id","outcome","seq") WHERE "webhook_events"."outcome" <> 'delivered';--> statement-breakpoint
CREATE INDEX "webhook_events_unheld_seq" ON "webhook_events" USING btree ("seq") WHERE "webhook_events"."status" = 'pending' and "webhook_events"."held_by" is null;--> statement-breakpoint
CREATE INDEX "webhook_events_created_at" ON "webhook_events" USING brin ("created_at");--> statement-breakpoint
ALTER TABLE "webhook_events" DROP COLUMN "locked_until";