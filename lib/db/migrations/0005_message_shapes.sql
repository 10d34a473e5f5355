ALTER TABLE "sandbox_messages" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "file" jsonb;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "mentioned_user_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "sorted_metaarray" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_messages" ADD COLUMN "is_silent" boolean DEFAULT false NOT NULL;