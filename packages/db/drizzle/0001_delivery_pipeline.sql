CREATE TABLE "monthly_usage" (
	"user_id" uuid NOT NULL,
	"month" date NOT NULL,
	"sends" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "monthly_usage_user_id_month_pk" PRIMARY KEY("user_id","month")
);
--> statement-breakpoint
CREATE TABLE "notification_chunks" (
	"notification_id" uuid NOT NULL,
	"first_subscription_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"subscription_ids" uuid[] NOT NULL,
	"last_subscription_id" uuid NOT NULL,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"expired" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "notification_chunks_notification_id_first_subscription_id_attempt_pk" PRIMARY KEY("notification_id","first_subscription_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"payload" jsonb NOT NULL,
	"ttl" integer NOT NULL,
	"urgency" text NOT NULL,
	"topic" text,
	"target_kind" text NOT NULL,
	"subscription_ids" uuid[],
	"status" text DEFAULT 'queued' NOT NULL,
	"targets" integer NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"expired" integer DEFAULT 0 NOT NULL,
	"idempotency_key" text,
	"accepted_response" jsonb,
	"fanned_out_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "monthly_usage" ADD CONSTRAINT "monthly_usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_chunks" ADD CONSTRAINT "notification_chunks_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_app_idempotency_key" ON "notifications" USING btree ("app_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "notifications_app_created_idx" ON "notifications" USING btree ("app_id","created_at");--> statement-breakpoint
CREATE INDEX "notifications_unfinished_idx" ON "notifications" USING btree ("updated_at") WHERE "notifications"."status" in ('queued', 'sending');