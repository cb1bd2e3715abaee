-- Audiences and scheduled sends.
-- Tags index choice, measured at 1,000,000 subscriptions in one app (one run each, on a shared and
-- loaded 2-core machine, so read the figures as orders of magnitude): a GIN jsonb_path_ops index on
-- subscriptions.tags vs a tag table (app_id, key, value, subscription_id) with that primary key.
--   size / build:            GIN 4.2 MB, 2.5 s        | tag table 315 MB, 93 s to fill
--   count of a 1% segment:   GIN 157 ms (bitmap scan) | tag table 618 ms as a join (planned a seq scan of s)
--   count of 2 pairs:        GIN 18 ms (one index condition) | tag table 200 ms (merge join of two ranges)
--   keyset page of 500 (1%): GIN 234 ms (s_app_active scan, tags filtered) | tag table 11 ms
--   planning time:           0.2-0.3 ms either way; no sequential scan with the GIN formulation.
-- Chosen: GIN. Counting at acceptance is in the 202's transaction and is faster; several pairs are one
-- index condition; subscribe/PATCH stay one-row writes with no second table to keep in step; 75x less
-- storage. The tag table only wins the fan-out's keyset pages, which run in the worker, stay index scans
-- (no seq scan), and cost about one pass over the app's active index per segment in total.
ALTER TABLE "apps" ADD COLUMN "identity_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "target_uids" text[];--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "target_tags" jsonb;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "send_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "uid" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "notifications_scheduled_idx" ON "notifications" USING btree ("send_at") WHERE "notifications"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX "subscriptions_app_uid_idx" ON "subscriptions" USING btree ("app_id","uid") WHERE "subscriptions"."status" = 'active' and "subscriptions"."uid" is not null;--> statement-breakpoint
CREATE INDEX "subscriptions_active_tags_idx" ON "subscriptions" USING gin ("tags" jsonb_path_ops) WHERE "subscriptions"."status" = 'active';