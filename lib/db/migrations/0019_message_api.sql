CREATE TABLE "sandbox_message_reactions" (
	"message_id" bigint NOT NULL,
	"reaction" text NOT NULL,
	"user_id" text NOT NULL,
	"updated_at" bigint NOT NULL,
	"seq" bigserial NOT NULL,
	CONSTRAINT "sandbox_message_reactions_message_id_reaction_user_id_pk" PRIMARY KEY("message_id","reaction","user_id")
);
--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "parent_message_id" bigint;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "is_reply_to_channel" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "updated_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_message_reactions" ADD CONSTRAINT "sandbox_message_reactions_message_id_sandbox_messages_message_id_fk" FOREIGN KEY ("message_id") REFERENCES "sandbox_messages"("message_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandbox_messages_thread" ON "sandbox_messages" USING btree ("parent_message_id","timestamp") WHERE "sandbox_messages"."parent_message_id" is not null;