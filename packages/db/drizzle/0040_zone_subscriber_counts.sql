-- Each app's active subscriptions per time zone, kept as 0032 keeps their total, so accepting a
-- `localTime` send to all of an app reads a few rows per zone instead of counting the app's
-- subscriptions zone by zone (docs/scaling.md). `time_zone` is '' for subscriptions without one.
--
-- The same triggers' shapes as 0032: inserts and deletes counted once per statement from their
-- transition tables, a row's change of status or zone row by row (only when one of them changes),
-- each count added to a stripe no other transaction is writing.
CREATE TABLE "app_zone_subscriber_counts" (
	"app_id" uuid NOT NULL,
	"time_zone" text NOT NULL,
	"stripe" smallint NOT NULL,
	"active" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "app_zone_subscriber_counts_pkey" PRIMARY KEY ("app_id", "time_zone", "stripe"),
	CONSTRAINT "app_zone_subscriber_counts_stripe_check" CHECK ("stripe" >= 0 AND "stripe" < 16)
);--> statement-breakpoint
ALTER TABLE "app_zone_subscriber_counts" ADD CONSTRAINT "app_zone_subscriber_counts_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Adds `delta` to the app's count of `zone`, as add_active_subscribers does for the total.
CREATE FUNCTION "add_zone_subscribers"("app" uuid, "zone" text, "delta" bigint) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	picked smallint;
BEGIN
	IF app IS NULL OR delta IS NULL OR delta = 0 THEN
		RETURN;
	END IF;
	SELECT c.stripe INTO picked FROM app_zone_subscriber_counts c WHERE c.app_id = app AND c.time_zone = zone
	ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF picked IS NOT NULL THEN
		UPDATE app_zone_subscriber_counts SET active = active + delta
		WHERE app_id = app AND time_zone = zone AND stripe = picked;
		RETURN;
	END IF;
	INSERT INTO app_zone_subscriber_counts (app_id, time_zone, stripe, active)
	SELECT app, zone, floor(random() * 16)::smallint, delta WHERE EXISTS (SELECT 1 FROM apps WHERE id = app)
	ON CONFLICT (app_id, time_zone, stripe) DO UPDATE SET active = app_zone_subscriber_counts.active + excluded.active;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_inserted_zone_subscribers"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, coalesce(time_zone, '') AS zone, count(*) AS n FROM inserted WHERE status = 'active'
		GROUP BY 1, 2 ORDER BY 1, 2
	LOOP
		PERFORM add_zone_subscribers(changed.app_id, changed.zone, changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_deleted_zone_subscribers"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, coalesce(time_zone, '') AS zone, count(*) AS n FROM deleted WHERE status = 'active'
		GROUP BY 1, 2 ORDER BY 1, 2
	LOOP
		PERFORM add_zone_subscribers(changed.app_id, changed.zone, -changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_zone_subscriber_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.status = 'active' THEN
		PERFORM add_zone_subscribers(OLD.app_id, coalesce(OLD.time_zone, ''), -1);
	END IF;
	IF NEW.status = 'active' THEN
		PERFORM add_zone_subscribers(NEW.app_id, coalesce(NEW.time_zone, ''), 1);
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_zone_inserted" AFTER INSERT ON "subscriptions"
REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_zone_subscribers();--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_zone_deleted" AFTER DELETE ON "subscriptions"
REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_zone_subscribers();--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_zone_change" AFTER UPDATE OF "status", "time_zone" ON "subscriptions"
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.time_zone IS DISTINCT FROM NEW.time_zone)
EXECUTE FUNCTION count_zone_subscriber_change();--> statement-breakpoint
-- The counts as they are now (the triggers above make writers wait until this migration commits).
INSERT INTO "app_zone_subscriber_counts" ("app_id", "time_zone", "stripe", "active")
SELECT "app_id", coalesce("time_zone", ''), 0, count(*) FROM "subscriptions" WHERE "status" = 'active'
GROUP BY 1, 2;--> statement-breakpoint
-- The zones of an app with active subscriptions and how many each has ('' : none): at most 16 rows
-- a zone by the primary key, one generic plan per connection whatever the statistics say.
CREATE FUNCTION "count_active_subscribers_by_zone"(app uuid) RETURNS TABLE ("zone" text, "active" integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
	RETURN QUERY
		SELECT c."time_zone", sum(c."active")::integer FROM "app_zone_subscriber_counts" c
		WHERE c."app_id" = count_active_subscribers_by_zone.app
		GROUP BY c."time_zone" HAVING sum(c."active") > 0;
END
$$;
--> statement-breakpoint
-- Recounts one app's zones from its subscriptions, for repairs after a bulk load with triggers
-- disabled (`session_replication_role = replica`): run it while nothing else changes the app's
-- subscriptions (a zone's rows are replaced, and a writer of a zone new to the app would not wait).
CREATE FUNCTION "recount_zone_subscribers"("app" uuid) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	counted bigint;
BEGIN
	PERFORM 1 FROM app_zone_subscriber_counts WHERE app_id = app ORDER BY time_zone, stripe FOR UPDATE;
	DELETE FROM app_zone_subscriber_counts WHERE app_id = app;
	INSERT INTO app_zone_subscriber_counts (app_id, time_zone, stripe, active)
	SELECT s.app_id, coalesce(s.time_zone, ''), 0, count(*) FROM subscriptions s
	WHERE s.app_id = app AND s.status = 'active' AND EXISTS (SELECT 1 FROM apps WHERE id = app)
	GROUP BY 1, 2;
	SELECT coalesce(sum(active), 0) INTO counted FROM app_zone_subscriber_counts WHERE app_id = app;
	RETURN counted;
END
$$;
