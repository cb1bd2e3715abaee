-- Engagement events: shown/clicked counts on the notification, raised in batches
-- by the API's flusher; notification_events is the durable "counted once" record per
-- (notification, subscription, type).
CREATE TABLE "notification_events" (
	"notification_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_events_notification_id_subscription_id_type_pk" PRIMARY KEY("notification_id","subscription_id","type")
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "shown" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "clicked" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_events_subscription_idx" ON "notification_events" USING btree ("subscription_id");
