-- Local-time delivery, throttling and frequency caps (docs/sending.md).
-- A `localTime` send is planned at acceptance as one group per distinct UTC instant: the zones whose
-- clock shows the asked time at that instant. The worker polls the due groups, as it polls
-- scheduled sends, so a restart or a loss of Redis data delays nothing.
ALTER TABLE "notifications" ADD COLUMN "local_time" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "throttle_per_minute" integer;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "skipped" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The newest pushes of this subscription first, at most 100 (the largest cap): the cap's check reads
-- one element, `recent_pushes[max] > now() - hours`.
ALTER TABLE "subscriptions" ADD COLUMN "recent_pushes" timestamp with time zone[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE TABLE "notification_local_groups" (
	"notification_id" uuid NOT NULL REFERENCES "notifications"("id") ON DELETE CASCADE,
	"due_at" timestamp with time zone NOT NULL,
	"zones" text[] NOT NULL,
	"unzoned" boolean NOT NULL,
	"targets" integer NOT NULL,
	"planned" integer DEFAULT 0 NOT NULL,
	"plan_cursor" uuid,
	"started_at" timestamp with time zone,
	"fanned_out_at" timestamp with time zone,
	PRIMARY KEY ("notification_id", "due_at")
);--> statement-breakpoint
CREATE INDEX "notification_local_groups_due_idx" ON "notification_local_groups" ("due_at") WHERE "started_at" IS NULL;
