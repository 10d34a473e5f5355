CREATE TABLE "sandbox_message_batches" (
	"batch_id" bigserial PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"channel_url" text NOT NULL,
	"channel_type" text NOT NULL,
	"messages" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_message_batches" ADD CONSTRAINT "sandbox_message_batches_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandbox_message_batches_channel" ON "sandbox_message_batches" USING btree ("app_id","channel_url","batch_id");