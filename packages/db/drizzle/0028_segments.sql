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
CREATE INDEX "segments_app_created_idx" ON "segments" USING btree ("app_id", "created_at", "id");
