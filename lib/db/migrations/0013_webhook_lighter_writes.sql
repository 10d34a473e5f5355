ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_event_id_webhook_events_id_fk";
