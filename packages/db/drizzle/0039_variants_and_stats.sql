-- A/B tests, per-target outcomes and the per-day history of each app (docs/engagement.md).
--
-- Variants: the send's content and its alternatives live in the payload (`variants`, `sample`,
-- `winnerAfterMinutes`). The planner draws each target's letter when it plans its chunk and keeps
-- them in `notification_chunks.variants`, one character per subscription id, in the same order;
-- retry chunks carry their subscriptions' letters along. A send with a sample plans only the sample
-- first and sets `winner_at`; the worker's winner pass (like the scheduler, a poll of PostgreSQL)
-- writes `winner` once that moment has passed, and the planner then plans the rest with it.
ALTER TABLE "notifications" ADD COLUMN "variant_stats" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "winner_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "winner" text;--> statement-breakpoint
-- The sample is the `sample_size` targets with the smallest (hashtextextended(id::text, sample_seed),
-- id): a random choice that the second phase tells apart again by its largest pair, the bound,
-- without storing the sample.
ALTER TABLE "notifications" ADD COLUMN "sample_size" integer;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "sample_seed" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "sample_bound_hash" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "sample_bound_id" uuid;--> statement-breakpoint
CREATE INDEX "notifications_winner_due_idx" ON "notifications" USING btree ("winner_at")
	WHERE "winner" IS NULL AND "winner_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_chunks" ADD COLUMN "variants" text;--> statement-breakpoint
-- One character per entry of `answered_subscription_ids`: s(ent), f(ailed), e(xpired), r(etry);
-- what the per-notification report reads. `failure_details` maps a failed subscription to why.
ALTER TABLE "notification_chunks" ADD COLUMN "answered_kinds" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_chunks" ADD COLUMN "failure_details" jsonb;--> statement-breakpoint
-- What an `answered_kinds` character means, as the per-notification report says it.
CREATE FUNCTION "answer_outcome"("code" text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE code WHEN 's' THEN 'sent' WHEN 'f' THEN 'failed' WHEN 'e' THEN 'expired' WHEN 'k' THEN 'skipped'
		ELSE 'pending' END
$$;--> statement-breakpoint
-- Which variant an engagement event was earned by (null without variants).
ALTER TABLE "notification_events" ADD COLUMN "variant" text;--> statement-breakpoint
-- Adds per-variant counts ({"B": {"sent": 3, "clicked": 1}}) to a notification's `variant_stats`.
CREATE FUNCTION "add_variant_counts"("stats" jsonb, "added" jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(jsonb_object_agg(v.name, v.counts), '{}'::jsonb) FROM (
		SELECT names.name, (
			SELECT coalesce(jsonb_object_agg(k.key, k.total), '{}'::jsonb) FROM (
				SELECT e.key, sum(e.value::numeric) AS total FROM (
					SELECT key, value FROM jsonb_each_text(coalesce(stats -> names.name, '{}'::jsonb))
					UNION ALL
					SELECT key, value FROM jsonb_each_text(coalesce(added -> names.name, '{}'::jsonb))
				) e GROUP BY e.key
			) k
		) AS counts
		FROM (SELECT jsonb_object_keys(coalesce(stats, '{}'::jsonb)) UNION SELECT jsonb_object_keys(coalesce(added, '{}'::jsonb)))
			AS names(name)
	) v
$$;--> statement-breakpoint
-- Each app's counts per UTC day, rolled up as they happen, so a history of 90 days reads at most a
-- few rows a day whatever the app sends, and outlives the retention of notifications and events.
-- A day normally has one row (stripe 0); a writer that finds every row of the day locked by another
-- transaction adds a stripe instead of waiting (at most 16), as `app_subscriber_counts` does, and
-- the worker's retention pass folds the stripes of past days back into one.
CREATE TABLE "app_day_stats" (
	"app_id" uuid NOT NULL,
	"day" date NOT NULL,
	"stripe" smallint DEFAULT 0 NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"expired" bigint DEFAULT 0 NOT NULL,
	"skipped" bigint DEFAULT 0 NOT NULL,
	"shown" bigint DEFAULT 0 NOT NULL,
	"clicked" bigint DEFAULT 0 NOT NULL,
	"converted" bigint DEFAULT 0 NOT NULL,
	"subscribed" bigint DEFAULT 0 NOT NULL,
	"unsubscribed" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "app_day_stats_pkey" PRIMARY KEY ("app_id", "day", "stripe"),
	CONSTRAINT "app_day_stats_stripe_check" CHECK ("stripe" >= 0 AND "stripe" < 16)
);--> statement-breakpoint
ALTER TABLE "app_day_stats" ADD CONSTRAINT "app_day_stats_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Adds to today's (UTC) counts of an app; nothing for an app being deleted. The one entry point:
-- triggers below call it, and so may any code that counts something the triggers do not see
-- (`select add_app_day_stats(app, skipped => 3)`).
CREATE FUNCTION "add_app_day_stats"("app" uuid, "sent" bigint DEFAULT 0, "failed" bigint DEFAULT 0,
	"expired" bigint DEFAULT 0, "skipped" bigint DEFAULT 0, "shown" bigint DEFAULT 0, "clicked" bigint DEFAULT 0,
	"converted" bigint DEFAULT 0, "subscribed" bigint DEFAULT 0, "unsubscribed" bigint DEFAULT 0) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	today date := (now() AT TIME ZONE 'UTC')::date;
	picked smallint;
BEGIN
	IF app IS NULL OR (sent = 0 AND failed = 0 AND expired = 0 AND skipped = 0 AND shown = 0 AND clicked = 0
		AND converted = 0 AND subscribed = 0 AND unsubscribed = 0) THEN
		RETURN;
	END IF;
	SELECT s.stripe INTO picked FROM app_day_stats s WHERE s.app_id = app AND s.day = today
	ORDER BY s.stripe LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF picked IS NULL THEN
		SELECT least(count(*), 15)::smallint INTO picked FROM app_day_stats s WHERE s.app_id = app AND s.day = today;
		INSERT INTO app_day_stats AS d (app_id, day, stripe, sent, failed, expired, skipped, shown, clicked, converted,
			subscribed, unsubscribed)
		SELECT app, today, picked, add_app_day_stats.sent, add_app_day_stats.failed, add_app_day_stats.expired,
			add_app_day_stats.skipped, add_app_day_stats.shown, add_app_day_stats.clicked, add_app_day_stats.converted,
			add_app_day_stats.subscribed, add_app_day_stats.unsubscribed
		WHERE EXISTS (SELECT 1 FROM apps WHERE id = app)
		ON CONFLICT (app_id, day, stripe) DO UPDATE SET sent = d.sent + excluded.sent, failed = d.failed + excluded.failed,
			expired = d.expired + excluded.expired, skipped = d.skipped + excluded.skipped, shown = d.shown + excluded.shown,
			clicked = d.clicked + excluded.clicked, converted = d.converted + excluded.converted,
			subscribed = d.subscribed + excluded.subscribed, unsubscribed = d.unsubscribed + excluded.unsubscribed;
		RETURN;
	END IF;
	UPDATE app_day_stats d SET sent = d.sent + add_app_day_stats.sent, failed = d.failed + add_app_day_stats.failed,
		expired = d.expired + add_app_day_stats.expired, skipped = d.skipped + add_app_day_stats.skipped,
		shown = d.shown + add_app_day_stats.shown, clicked = d.clicked + add_app_day_stats.clicked,
		converted = d.converted + add_app_day_stats.converted, subscribed = d.subscribed + add_app_day_stats.subscribed,
		unsubscribed = d.unsubscribed + add_app_day_stats.unsubscribed
	WHERE d.app_id = app AND d.day = today AND d.stripe = picked;
END
$$;--> statement-breakpoint
-- Delivery and engagement counts reach a notification only by adding to its counters (a chunk's
-- outcome, the plan's vanished targets, the engagement flush): the difference is the day's.
CREATE FUNCTION "count_notification_day_stats"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM add_app_day_stats(NEW.app_id, sent => NEW.sent - OLD.sent, failed => NEW.failed - OLD.failed,
		expired => NEW.expired - OLD.expired, shown => NEW.shown - OLD.shown, clicked => NEW.clicked - OLD.clicked,
		converted => NEW.converted - OLD.converted);
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "notifications_count_day_stats" AFTER UPDATE OF "sent", "failed", "expired", "shown", "clicked", "converted"
ON "notifications" FOR EACH ROW
WHEN (OLD.sent IS DISTINCT FROM NEW.sent OR OLD.failed IS DISTINCT FROM NEW.failed
	OR OLD.expired IS DISTINCT FROM NEW.expired OR OLD.shown IS DISTINCT FROM NEW.shown
	OR OLD.clicked IS DISTINCT FROM NEW.clicked OR OLD.converted IS DISTINCT FROM NEW.converted)
EXECUTE FUNCTION count_notification_day_stats();--> statement-breakpoint
-- Subscriptions made (an insert, or an expired one active again) and ended (expired, retired or
-- deleted while active), counted in the statement that does it whichever code path runs it.
CREATE FUNCTION "count_subscription_day_stats_inserted"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, count(*) AS n FROM inserted WHERE status = 'active' GROUP BY app_id ORDER BY app_id
	LOOP
		PERFORM add_app_day_stats(changed.app_id, subscribed => changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_subscription_day_stats_deleted"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, count(*) AS n FROM deleted WHERE status = 'active' GROUP BY app_id ORDER BY app_id
	LOOP
		PERFORM add_app_day_stats(changed.app_id, unsubscribed => changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_subscription_day_stats_status"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.status = 'active' THEN
		PERFORM add_app_day_stats(NEW.app_id, subscribed => 1);
	ELSIF OLD.status = 'active' THEN
		PERFORM add_app_day_stats(OLD.app_id, unsubscribed => 1);
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "subscriptions_day_stats_inserted" AFTER INSERT ON "subscriptions"
REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_subscription_day_stats_inserted();--> statement-breakpoint
CREATE TRIGGER "subscriptions_day_stats_deleted" AFTER DELETE ON "subscriptions"
REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_subscription_day_stats_deleted();--> statement-breakpoint
CREATE TRIGGER "subscriptions_day_stats_status" AFTER UPDATE OF "status" ON "subscriptions"
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION count_subscription_day_stats_status();
