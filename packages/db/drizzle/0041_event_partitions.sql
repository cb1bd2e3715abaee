-- Engagement events in monthly partitions (docs/operations.md, "Event partitions"): each row carries
-- its notification's app and creation time, and `notification_events` is partitioned by month of
-- that creation time, so every event of a notification lives in one partition and retention drops a
-- whole month at once instead of deleting its rows one batch at a time. The key includes the
-- partition key (PostgreSQL requires it) and the app: (notification_id, subscription_id, type,
-- app_id, notification_created_at) is as exact a "counted once" as before, since a notification has
-- one app and one creation time.
--
-- An existing table is not copied: it becomes the partition `notification_events_legacy`, holding
-- every notification created before this migration. Its rows get the new columns without a rewrite
-- (a constant default: app 00000000-0000-0000-0000-000000000000 and creation time -infinity), a
-- CHECK constraint proves they belong to the legacy range, and a unique index matching the new key
-- lets ATTACH reuse it: attaching then neither scans nor builds. `runMigrations` does those steps
-- beforehand on a table that is not partitioned yet, outside any transaction (the CHECK validated
-- and the index built CONCURRENTLY while the application keeps writing), so that here they find
-- their work done and this migration holds its locks for milliseconds. Run by another migrator on a
-- large table, they happen below, under the lock, and take as long as a scan and an index build.
-- The legacy partition keeps its old primary key (notification_id, subscription_id, type): a late
-- event of an old notification is routed to it and meets the row counted before the migration.
ALTER TABLE "notification_events" ADD COLUMN IF NOT EXISTS "app_id" uuid
	DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_events" ADD COLUMN IF NOT EXISTS "notification_created_at" timestamp with time zone
	DEFAULT '-infinity' NOT NULL;--> statement-breakpoint
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'notification_events'::regclass
		AND conname = 'notification_events_legacy_check') THEN
		ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_legacy_check"
			CHECK ("notification_created_at" = '-infinity'::timestamptz) NOT VALID;
	END IF;
	-- What an interrupted CREATE INDEX CONCURRENTLY leaves behind.
	IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relname = 'notification_events_legacy_key' AND NOT i.indisvalid) THEN
		DROP INDEX "notification_events_legacy_key";
	END IF;
END
$$;--> statement-breakpoint
ALTER TABLE "notification_events" VALIDATE CONSTRAINT "notification_events_legacy_check";--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "notification_events_legacy_key" ON "notification_events"
	("notification_id", "subscription_id", "type", "app_id", "notification_created_at");--> statement-breakpoint
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'notification_events'::regclass
		AND conname = 'notification_events_legacy_key') THEN
		ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_legacy_key"
			UNIQUE USING INDEX "notification_events_legacy_key";
	END IF;
END
$$;--> statement-breakpoint
ALTER TABLE "notification_events" RENAME TO "notification_events_legacy";--> statement-breakpoint
ALTER TABLE "notification_events_legacy" RENAME CONSTRAINT "notification_events_notification_id_subscription_id_type_pk"
	TO "notification_events_legacy_pkey";--> statement-breakpoint
ALTER INDEX "notification_events_subscription_idx" RENAME TO "notification_events_legacy_subscription_idx";--> statement-breakpoint
CREATE TABLE "notification_events" (
	"notification_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"value" numeric,
	"variant" text,
	-- The notification's app and creation time, copied from it by the statement that counts the event.
	"app_id" uuid NOT NULL,
	"notification_created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "notification_events_key"
		UNIQUE ("notification_id", "subscription_id", "type", "app_id", "notification_created_at")
) PARTITION BY RANGE ("notification_created_at");--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_notification_id_notifications_id_fk"
	FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_subscription_id_subscriptions_id_fk"
	FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_events_subscription_idx" ON "notification_events" USING btree ("subscription_id");--> statement-breakpoint
-- The legacy range ends at this moment, taken once the rename holds the table's lock: every event
-- already stored is of a notification created before it. An empty table (a new installation) is
-- not kept.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM "notification_events_legacy") THEN
		EXECUTE format('ALTER TABLE "notification_events" ATTACH PARTITION "notification_events_legacy" '
			'FOR VALUES FROM (MINVALUE) TO (%L)', clock_timestamp());
		ALTER TABLE "notification_events_legacy" DROP CONSTRAINT "notification_events_legacy_check";
		ALTER TABLE "notification_events_legacy" ALTER COLUMN "app_id" DROP DEFAULT,
			ALTER COLUMN "notification_created_at" DROP DEFAULT;
	ELSE
		DROP TABLE "notification_events_legacy";
	END IF;
END
$$;--> statement-breakpoint
-- Rows no partition takes, so that counting never fails when the months ahead were not created in
-- time (the worker's retention pass creates them). Kept empty in practice: creating a partition
-- checks the default one for rows of its range, and moves them (below).
CREATE TABLE "notification_events_default" PARTITION OF "notification_events" DEFAULT;--> statement-breakpoint
-- The partitions of `notification_events` with their range; the default partition is not listed,
-- the legacy one starts at -infinity.
CREATE FUNCTION "notification_event_partitions"()
RETURNS TABLE ("name" text, "lower" timestamptz, "upper" timestamptz)
LANGUAGE sql STABLE AS $$
	SELECT c.relname::text,
		CASE WHEN b[1] = 'MINVALUE' THEN '-infinity' ELSE btrim(b[1], '''') END::timestamptz,
		CASE WHEN b[2] = 'MAXVALUE' THEN 'infinity' ELSE btrim(b[2], '''') END::timestamptz
	FROM pg_inherits i
	JOIN pg_class c ON c.oid = i.inhrelid
	CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \((.+)\) TO \((.+)\)$') AS b
	WHERE i.inhparent = 'notification_events'::regclass AND b IS NOT NULL
	ORDER BY 2
$$;--> statement-breakpoint
-- Whether a notification created in [lower, upper) has not finished: its partition must wait.
-- Two probes of the partial indexes on unfinished notifications, each a handful of rows.
CREATE FUNCTION "unfinished_notifications_between"("lower" timestamptz, "upper" timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT EXISTS (SELECT 1 FROM notifications n WHERE n.status IN ('queued', 'sending')
			AND n.created_at >= "lower" AND n.created_at < "upper")
		OR EXISTS (SELECT 1 FROM notifications n WHERE n.status = 'scheduled'
			AND n.created_at >= "lower" AND n.created_at < "upper")
$$;--> statement-breakpoint
-- Creates the partitions of this month (UTC), the `ahead` next ones and the `behind` previous ones
-- (for a restore or a test; retention never asks) that do not exist yet, named
-- notification_events_YYYY_MM; returns how many it made. Several callers at once wait for each
-- other on an advisory lock and the later ones find the work done. A month that an existing
-- partition already covers in part (the legacy range ends inside its month) starts where that
-- one ends. Rows of the month in the default partition are moved into the new one.
CREATE FUNCTION "create_notification_event_partitions"("ahead" integer DEFAULT 2, "behind" integer DEFAULT 0)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	first_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
	month_start date;
	range_lower timestamptz;
	range_upper timestamptz;
	covered timestamptz;
	partition_name text;
	made integer := 0;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('notification_events partitions'));
	FOR i IN -behind..ahead LOOP
		month_start := (first_month + make_interval(months => i))::date;
		partition_name := 'notification_events_' || to_char(month_start, 'YYYY_MM');
		CONTINUE WHEN to_regclass(format('%I', partition_name)) IS NOT NULL;
		range_lower := month_start::timestamp AT TIME ZONE 'UTC';
		range_upper := (month_start + interval '1 month') AT TIME ZONE 'UTC';
		SELECT max(p.upper) INTO covered FROM notification_event_partitions() p
		WHERE p.lower < range_upper AND p.upper > range_lower;
		IF covered IS NOT NULL THEN
			CONTINUE WHEN covered >= range_upper;
			range_lower := covered;
		END IF;
		IF EXISTS (SELECT 1 FROM notification_events_default d
			WHERE d.notification_created_at >= range_lower AND d.notification_created_at < range_upper) THEN
			EXECUTE format('CREATE TABLE %I (LIKE notification_events INCLUDING DEFAULTS)', partition_name);
			EXECUTE format('WITH moved AS (DELETE FROM notification_events_default WHERE notification_created_at >= %L '
				'AND notification_created_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
				range_lower, range_upper, partition_name);
			EXECUTE format('ALTER TABLE notification_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
				partition_name, range_lower, range_upper);
		ELSE
			EXECUTE format('CREATE TABLE %I PARTITION OF notification_events FOR VALUES FROM (%L) TO (%L)',
				partition_name, range_lower, range_upper);
		END IF;
		made := made + 1;
	END LOOP;
	RETURN made;
END
$$;--> statement-breakpoint
-- Drops the oldest partition whose range ended more than `retention_days` ago, when no notification
-- created in it is unfinished; returns its name, or null when none is due. DROP rather than DETACH
-- then DROP: a detached partition's foreign keys become constraints of their own, which takes
-- locks on `notifications` and `subscriptions`; dropping it directly locks only `notification_events`
-- and its default partition, for the moment of the catalog change.
CREATE FUNCTION "drop_expired_notification_event_partition"("retention_days" integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	partition_name text;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('notification_events partitions'));
	SELECT p.name INTO partition_name FROM notification_event_partitions() p
	WHERE p.upper <= now() - make_interval(days => retention_days)
		AND NOT unfinished_notifications_between(p.lower, p.upper)
	ORDER BY p.upper LIMIT 1;
	IF partition_name IS NOT NULL THEN
		EXECUTE format('DROP TABLE %I', partition_name);
	END IF;
	RETURN partition_name;
END
$$;--> statement-breakpoint
SELECT create_notification_event_partitions(2);
