ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_event_id_webhook_events_id_fk";
--> statement-breakpoint
-- Half of each page left free for the claim's new row version: the claim changes no indexed
-- column, so with room on the page it is a HOT update and writes no index entry (full pages
-- sent every claim to another page and into all seven indexes). drizzle-kit has no table
-- storage parameters, so this line is written by hand (see lib/db/schema.ts).
ALTER TABLE "webhook_events" SET (fillfactor = 50);
