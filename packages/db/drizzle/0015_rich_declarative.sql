-- Rich notifications and Declarative Web Push. The rich fields (image, actions, tag, data…) live
-- in the notification's `payload` jsonb beside title and body, so they need no column. Clicks per
-- button are counted on the notification; the "counted once" record of a button click is a
-- `notification_events` row of type `action:<action>`. An app chooses the payload format its
-- browsers receive, and the page a click opens when a notification has no url.
ALTER TABLE "notifications" ADD COLUMN "action_clicks" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "push_format" text DEFAULT 'legacy' NOT NULL;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "default_url" text;
