-- The webhook circuit breaker, shared by every worker process and shown by the API: failed attempts
-- in a row, the pause they caused, the last error (a short reason, never the receiver's answer),
-- when the streak began, and when the webhook was disabled for failing too long. Constant defaults
-- and nullable columns: adding them rewrites no row.
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "failures_in_a_row" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "paused_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "last_error_reason" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "last_error_status" integer;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "last_error_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "disabled_at" timestamp with time zone;
