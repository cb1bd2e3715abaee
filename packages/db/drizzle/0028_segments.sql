-- Saved segments, and the app settings that go with audiences.
-- Saved segments: an app's named audience expressions (docs/sending.md, "Segments"). A send to one
-- copies its expression onto the notification (`target_segment`), so deleting it later changes no
-- send already accepted.
CREATE TABLE "segments" (
	"id" uuid PRIMARY KEY DEFAULT uuid_time_ordered() NOT NULL,
	"app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
	"name" text NOT NULL,
	"expression" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "segments_app_created_idx" ON "segments" USING btree ("app_id", "created_at", "id");--> statement-breakpoint
-- An app's time zone (for subscriptions that have none) and its frequency cap ({max, hours}; null:
-- none), set with PATCH /apps/{appId}.
ALTER TABLE "apps" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "frequency_cap" jsonb;
