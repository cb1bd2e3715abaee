-- Conversions (docs/engagement.md): counted like `shown` and `clicked`, once per (notification,
-- subscription) through `notification_events`, whose row keeps the value it was credited with.
-- numeric, not double precision: a sum of prices such as 19.99 stays exact.
ALTER TABLE "notifications" ADD COLUMN "converted" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "conversion_value" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_events" ADD COLUMN "value" numeric;
