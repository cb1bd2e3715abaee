ALTER TABLE "notification_chunks" ADD COLUMN "answered_subscription_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_chunks" ADD COLUMN "retry_subscription_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_chunks" ADD COLUMN "retry_after_ms" integer DEFAULT 0 NOT NULL;