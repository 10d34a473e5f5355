CREATE TABLE "admin_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"api_token" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"webhook" jsonb NOT NULL,
	"rate_limit" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_files" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_group_channels" (
	"app_id" text NOT NULL,
	"channel_url" text NOT NULL,
	"name" text NOT NULL,
	"cover_url" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"data" text DEFAULT '' NOT NULL,
	"is_distinct" boolean DEFAULT false NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"is_super" boolean DEFAULT false NOT NULL,
	"is_ephemeral" boolean DEFAULT false NOT NULL,
	"access_code" text,
	"block_sdk_user_channel_join" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"members" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"operator_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"distinct_key" text,
	"freeze" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"seq" bigserial NOT NULL,
	CONSTRAINT "sandbox_group_channels_app_id_channel_url_pk" PRIMARY KEY("app_id","channel_url")
);
--> statement-breakpoint
CREATE TABLE "sandbox_messages" (
	"message_id" bigserial PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"channel_url" text NOT NULL,
	"channel_type" text NOT NULL,
	"user_id" text NOT NULL,
	"message_type" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"data" text DEFAULT '' NOT NULL,
	"dedup_id" text,
	"timestamp" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_open_channels" (
	"app_id" text NOT NULL,
	"channel_url" text NOT NULL,
	"name" text NOT NULL,
	"cover_url" text DEFAULT '' NOT NULL,
	"custom_type" text DEFAULT '' NOT NULL,
	"data" text DEFAULT '' NOT NULL,
	"is_ephemeral" boolean DEFAULT false NOT NULL,
	"is_dynamic_partitioned" boolean DEFAULT true NOT NULL,
	"operator_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"freeze" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"seq" bigserial NOT NULL,
	CONSTRAINT "sandbox_open_channels_app_id_channel_url_pk" PRIMARY KEY("app_id","channel_url")
);
--> statement-breakpoint
CREATE TABLE "sandbox_users" (
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"nickname" text NOT NULL,
	"profile_url" text DEFAULT '' NOT NULL,
	"access_token" text DEFAULT '' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"session_tokens" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"seq" bigserial NOT NULL,
	CONSTRAINT "sandbox_users_app_id_user_id_pk" PRIMARY KEY("app_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"status" integer,
	"error" text,
	"latency_ms" integer NOT NULL,
	"response_excerpt" text
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"category" text NOT NULL,
	"payload" jsonb NOT NULL,
	"url" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seq" bigserial NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_files" ADD CONSTRAINT "sandbox_files_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_group_channels" ADD CONSTRAINT "sandbox_group_channels_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD CONSTRAINT "sandbox_messages_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_open_channels" ADD CONSTRAINT "sandbox_open_channels_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_users" ADD CONSTRAINT "sandbox_users_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_app_id_sandbox_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "sandbox_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandbox_group_channels_seq" ON "sandbox_group_channels" USING btree ("app_id","seq");--> statement-breakpoint
CREATE INDEX "sandbox_group_channels_distinct" ON "sandbox_group_channels" USING btree ("app_id","distinct_key");--> statement-breakpoint
CREATE INDEX "sandbox_messages_channel" ON "sandbox_messages" USING btree ("app_id","channel_url","timestamp");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_messages_dedup" ON "sandbox_messages" USING btree ("app_id","channel_url","dedup_id") WHERE "sandbox_messages"."dedup_id" is not null;--> statement-breakpoint
CREATE INDEX "sandbox_open_channels_seq" ON "sandbox_open_channels" USING btree ("app_id","seq");--> statement-breakpoint
CREATE INDEX "sandbox_users_seq" ON "sandbox_users" USING btree ("app_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_attempts_event_attempt" ON "webhook_attempts" USING btree ("event_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_events_due" ON "webhook_events" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_events_app_seq" ON "webhook_events" USING btree ("app_id","seq");