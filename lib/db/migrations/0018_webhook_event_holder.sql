-- A claim names its worker (lib/background/holder.ts) instead of running out at a time: a
-- stalled worker keeps its claims, a dead one loses them at once. Claims under way when this
-- runs belong to a process that has stopped, and carry no holder: they are taken over.
ALTER TABLE "webhook_events" ADD COLUMN "locked_by" bigint;
--> statement-breakpoint
ALTER TABLE "webhook_events" DROP COLUMN "locked_until";
