-- A notification and every row hanging off it in monthly partitions by the notification's creation
-- (docs/operations.md, "Notification partitions"): `notifications` by `created_at`, and
-- `notification_chunks`, `notification_chunk_answers`, `notification_local_groups` (and, since
-- migration 0041, `notification_events`) by a copy of it, `notification_created_at`, each beside the
-- notification's `app_id`. A month is then one partition of each table, and retention drops the five
-- at once instead of deleting their rows one batch at a time.
--
-- Keys. PostgreSQL requires the partition key in every unique key, and the app is in each of them
-- too (docs/scaling.md: the column a distributed PostgreSQL would shard by). The foreign keys are
-- declared between the partitions of one month (chunks of 2026_12 reference notifications of
-- 2026_12), never on the partitioned tables: a month is dropped by dropping its partitions, children
-- first, and no other table refers to them, so a drop locks nothing else and checks nothing. The
-- partitions are made together, a month at a time, by `create_notification_partitions`.
--
-- An existing database is not copied. Each table becomes the partition `<table>_legacy`, with its
-- old foreign keys (chunks to notifications, answers to chunks, groups to notifications: all legacy
-- to legacy), covering every notification created before the start of the month after next: a
-- CHECK constraint proves it (for the children: their new columns hold a constant, added without a
-- rewrite), and a unique index matching the new key lets ATTACH reuse it. `runMigrations` does
-- those steps beforehand, outside any transaction and CONCURRENTLY (`prepareNotificationPartitions`)
-- so that here the locks are held for milliseconds; run by another migrator on a large database they
-- happen below, under the lock. The month partitions begin where the legacy ones end.
--
-- `notifications_app_idempotency_key` cannot be a key of the partitioned table (it lacks
-- `created_at`): each partition has its own, `<partition>_app_idempotency_key`, and the accept
-- finds a key answered within 24 h in any of them.
ALTER TABLE "notification_chunks"
	ADD COLUMN IF NOT EXISTS "app_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL,
	ADD COLUMN IF NOT EXISTS "notification_created_at" timestamp with time zone DEFAULT '-infinity' NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_chunk_answers"
	ADD COLUMN IF NOT EXISTS "app_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL,
	ADD COLUMN IF NOT EXISTS "notification_created_at" timestamp with time zone DEFAULT '-infinity' NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_local_groups"
	ADD COLUMN IF NOT EXISTS "app_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL,
	ADD COLUMN IF NOT EXISTS "notification_created_at" timestamp with time zone DEFAULT '-infinity' NOT NULL;--> statement-breakpoint
-- Where the legacy range ends: the start of the month after next (UTC), so that the CHECK added by
-- `prepareNotificationPartitions` a moment ago still holds for the rows written since.
CREATE FUNCTION "notification_legacy_bound"() RETURNS timestamptz
LANGUAGE sql STABLE AS $$
	SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months') AT TIME ZONE 'UTC'
$$;--> statement-breakpoint
DO $$
DECLARE
	child text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'notifications'::regclass
		AND conname = 'notifications_legacy_check') THEN
		EXECUTE format('ALTER TABLE "notifications" ADD CONSTRAINT "notifications_legacy_check" '
			'CHECK ("created_at" < %L::timestamptz) NOT VALID', notification_legacy_bound());
	END IF;
	FOREACH child IN ARRAY ARRAY['notification_chunks', 'notification_chunk_answers', 'notification_local_groups'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = child::regclass
			AND conname = child || '_legacy_check') THEN
			EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I '
				'CHECK ("notification_created_at" = ''-infinity''::timestamptz) NOT VALID', child, child || '_legacy_check');
		END IF;
	END LOOP;
	-- What an interrupted CREATE INDEX CONCURRENTLY leaves behind.
	FOREACH child IN ARRAY ARRAY['notifications_legacy_key', 'notification_chunks_legacy_key',
		'notification_local_groups_legacy_key'] LOOP
		IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relname = child AND NOT i.indisvalid) THEN
			EXECUTE format('DROP INDEX %I', child);
		END IF;
	END LOOP;
END
$$;--> statement-breakpoint
ALTER TABLE "notifications" VALIDATE CONSTRAINT "notifications_legacy_check";--> statement-breakpoint
ALTER TABLE "notification_chunks" VALIDATE CONSTRAINT "notification_chunks_legacy_check";--> statement-breakpoint
ALTER TABLE "notification_chunk_answers" VALIDATE CONSTRAINT "notification_chunk_answers_legacy_check";--> statement-breakpoint
ALTER TABLE "notification_local_groups" VALIDATE CONSTRAINT "notification_local_groups_legacy_check";--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "notifications_legacy_key" ON "notifications" ("id", "app_id", "created_at");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "notification_chunks_legacy_key" ON "notification_chunks"
	("notification_id", "first_subscription_id", "attempt", "app_id", "notification_created_at");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "notification_local_groups_legacy_key" ON "notification_local_groups"
	("notification_id", "due_at", "app_id", "notification_created_at");--> statement-breakpoint
DO $$
DECLARE
	name text;
BEGIN
	FOREACH name IN ARRAY ARRAY['notifications', 'notification_chunks', 'notification_local_groups'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = name::regclass AND conname = name || '_legacy_key') THEN
			EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I UNIQUE USING INDEX %I', name, name || '_legacy_key',
				name || '_legacy_key');
		END IF;
	END LOOP;
END
$$;--> statement-breakpoint
-- The events' key to the notifications becomes one per partition (below, and in
-- `create_notification_partitions`).
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_notification_id_notifications_id_fk";--> statement-breakpoint
-- Made again on the partitioned table, which gives it to every partition.
DROP TRIGGER "notifications_count_day_stats" ON "notifications";--> statement-breakpoint
ALTER TABLE "notifications" RENAME TO "notifications_legacy";--> statement-breakpoint
ALTER TABLE "notifications_legacy" RENAME CONSTRAINT "notifications_pkey" TO "notifications_legacy_pkey";--> statement-breakpoint
ALTER INDEX "notifications_app_idempotency_key" RENAME TO "notifications_legacy_app_idempotency_key";--> statement-breakpoint
ALTER INDEX "notifications_app_created_idx" RENAME TO "notifications_legacy_app_created_idx";--> statement-breakpoint
ALTER INDEX "notifications_unfinished_idx" RENAME TO "notifications_legacy_unfinished_idx";--> statement-breakpoint
ALTER INDEX "notifications_scheduled_idx" RENAME TO "notifications_legacy_scheduled_idx";--> statement-breakpoint
ALTER INDEX "notifications_winner_due_idx" RENAME TO "notifications_legacy_winner_due_idx";--> statement-breakpoint
ALTER INDEX "notifications_finished_created_idx" RENAME TO "notifications_legacy_finished_created_idx";--> statement-breakpoint
ALTER TABLE "notification_chunks" RENAME TO "notification_chunks_legacy";--> statement-breakpoint
ALTER TABLE "notification_chunks_legacy" RENAME CONSTRAINT "notification_chunks_notification_id_first_subscription_id_attem"
	TO "notification_chunks_legacy_pkey";--> statement-breakpoint
ALTER TABLE "notification_chunk_answers" RENAME TO "notification_chunk_answers_legacy";--> statement-breakpoint
ALTER INDEX "notification_chunk_answers_chunk_idx" RENAME TO "notification_chunk_answers_legacy_chunk_idx";--> statement-breakpoint
ALTER TABLE "notification_local_groups" RENAME TO "notification_local_groups_legacy";--> statement-breakpoint
ALTER TABLE "notification_local_groups_legacy" RENAME CONSTRAINT "notification_local_groups_pkey"
	TO "notification_local_groups_legacy_pkey";--> statement-breakpoint
ALTER INDEX "notification_local_groups_due_idx" RENAME TO "notification_local_groups_legacy_due_idx";--> statement-breakpoint
CREATE TABLE "notifications" (
	LIKE "notifications_legacy" INCLUDING DEFAULTS,
	CONSTRAINT "notifications_key" UNIQUE ("id", "app_id", "created_at")
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_app_id_apps_id_fk"
	FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_app_created_idx" ON "notifications" ("app_id", "created_at" DESC, "id" DESC);--> statement-breakpoint
CREATE INDEX "notifications_unfinished_idx" ON "notifications" ("updated_at")
	WHERE "status" = ANY (ARRAY['queued'::text, 'sending'::text]);--> statement-breakpoint
CREATE INDEX "notifications_scheduled_idx" ON "notifications" ("send_at") WHERE "status" = 'scheduled'::text;--> statement-breakpoint
CREATE INDEX "notifications_winner_due_idx" ON "notifications" ("winner_at")
	WHERE "winner" IS NULL AND "winner_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "notifications_finished_created_idx" ON "notifications" ("created_at")
	WHERE "status" = ANY (ARRAY['completed'::text, 'failed'::text, 'canceled'::text]);--> statement-breakpoint
CREATE TRIGGER "notifications_count_day_stats" AFTER UPDATE OF sent, failed, expired, shown, clicked, converted
	ON "notifications" FOR EACH ROW WHEN (old.sent IS DISTINCT FROM new.sent OR old.failed IS DISTINCT FROM new.failed
		OR old.expired IS DISTINCT FROM new.expired OR old.shown IS DISTINCT FROM new.shown
		OR old.clicked IS DISTINCT FROM new.clicked OR old.converted IS DISTINCT FROM new.converted)
	EXECUTE FUNCTION count_notification_day_stats();--> statement-breakpoint
CREATE TABLE "notification_chunks" (
	LIKE "notification_chunks_legacy" INCLUDING DEFAULTS,
	CONSTRAINT "notification_chunks_key"
		UNIQUE ("notification_id", "first_subscription_id", "attempt", "app_id", "notification_created_at")
) PARTITION BY RANGE ("notification_created_at");--> statement-breakpoint
ALTER TABLE "notification_chunks" ALTER COLUMN "app_id" DROP DEFAULT,
	ALTER COLUMN "notification_created_at" DROP DEFAULT;--> statement-breakpoint
CREATE TABLE "notification_chunk_answers" (LIKE "notification_chunk_answers_legacy" INCLUDING DEFAULTS)
	PARTITION BY RANGE ("notification_created_at");--> statement-breakpoint
ALTER TABLE "notification_chunk_answers" ALTER COLUMN "app_id" DROP DEFAULT,
	ALTER COLUMN "notification_created_at" DROP DEFAULT;--> statement-breakpoint
CREATE INDEX "notification_chunk_answers_chunk_idx" ON "notification_chunk_answers"
	("notification_id", "first_subscription_id", "attempt");--> statement-breakpoint
CREATE TABLE "notification_local_groups" (
	LIKE "notification_local_groups_legacy" INCLUDING DEFAULTS,
	CONSTRAINT "notification_local_groups_key" UNIQUE ("notification_id", "due_at", "app_id", "notification_created_at")
) PARTITION BY RANGE ("notification_created_at");--> statement-breakpoint
ALTER TABLE "notification_local_groups" ALTER COLUMN "app_id" DROP DEFAULT,
	ALTER COLUMN "notification_created_at" DROP DEFAULT;--> statement-breakpoint
CREATE INDEX "notification_local_groups_due_idx" ON "notification_local_groups" ("due_at") WHERE "started_at" IS NULL;--> statement-breakpoint
-- The partitions of a partitioned table with their range, oldest first; the default partition is
-- not listed, a legacy one starts at -infinity.
CREATE FUNCTION "table_partitions"("parent" regclass)
RETURNS TABLE ("name" text, "lower" timestamptz, "upper" timestamptz)
LANGUAGE sql STABLE AS $$
	SELECT c.relname::text,
		CASE WHEN b[1] = 'MINVALUE' THEN '-infinity' ELSE btrim(b[1], '''') END::timestamptz,
		CASE WHEN b[2] = 'MAXVALUE' THEN 'infinity' ELSE btrim(b[2], '''') END::timestamptz
	FROM pg_inherits i
	JOIN pg_class c ON c.oid = i.inhrelid
	CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \((.+)\) TO \((.+)\)$') AS b
	WHERE i.inhparent = "parent" AND b IS NOT NULL
	ORDER BY 2
$$;--> statement-breakpoint
-- The legacy tables become the first partitions, or go when there is nothing in them (a new
-- installation; then the events have nothing either, their legacy partition goes too). The events
-- partitions inside the legacy range refer to the legacy notifications: NOT VALID, the rows having
-- been checked against the same table by the key dropped above.
DO $$
DECLARE
	bound timestamptz := notification_legacy_bound();
	child text;
	part record;
BEGIN
	IF EXISTS (SELECT 1 FROM "notifications_legacy") THEN
		EXECUTE format('ALTER TABLE "notifications" ATTACH PARTITION "notifications_legacy" '
			'FOR VALUES FROM (MINVALUE) TO (%L)', bound);
		ALTER TABLE "notifications_legacy" DROP CONSTRAINT "notifications_legacy_check";
		FOREACH child IN ARRAY ARRAY['notification_chunks', 'notification_chunk_answers', 'notification_local_groups'] LOOP
			EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
				child, child || '_legacy', bound);
			EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', child || '_legacy', child || '_legacy_check');
			EXECUTE format('ALTER TABLE %I ALTER COLUMN "app_id" DROP DEFAULT, '
				'ALTER COLUMN "notification_created_at" DROP DEFAULT', child || '_legacy');
		END LOOP;
		FOR part IN SELECT p.name FROM table_partitions('notification_events') p WHERE p.upper <= bound LOOP
			EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("notification_id") '
				'REFERENCES "notifications_legacy"("id") ON DELETE CASCADE NOT VALID', part.name, part.name || '_notification_fk');
		END LOOP;
	ELSE
		DROP TABLE "notification_chunk_answers_legacy", "notification_chunks_legacy", "notification_local_groups_legacy",
			"notifications_legacy";
		DROP TABLE IF EXISTS "notification_events_legacy";
	END IF;
END
$$;--> statement-breakpoint
DROP FUNCTION "notification_legacy_bound"();--> statement-breakpoint
-- Rows no partition takes, so that an accept never fails when the months ahead were not made in
-- time (the worker's retention pass makes them). Kept empty in practice: making a month moves its
-- rows out of them. Without foreign keys: a row is checked when it moves into its month.
CREATE TABLE "notifications_default" PARTITION OF "notifications" DEFAULT;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_default_app_idempotency_key" ON "notifications_default" ("app_id", "idempotency_key");--> statement-breakpoint
CREATE TABLE "notification_chunks_default" PARTITION OF "notification_chunks" DEFAULT;--> statement-breakpoint
CREATE TABLE "notification_chunk_answers_default" PARTITION OF "notification_chunk_answers" DEFAULT;--> statement-breakpoint
CREATE TABLE "notification_local_groups_default" PARTITION OF "notification_local_groups" DEFAULT;--> statement-breakpoint
-- Makes the month [lower, upper) of `child` (named `name`) and its key to the month's parent rows
-- (`partner`, a partition of notifications, or of chunks for the answers). Rows of the range in the
-- default partition move into it first; the key is then NOT VALID (a moved row whose parent row was
-- deleted meanwhile is kept rather than fail the month). A legacy partner is referred to by its old
-- key (its rows' `notification_created_at` and `app_id` are constants).
CREATE FUNCTION "create_notification_partition"("child" text, "name" text, "lower" timestamptz, "upper" timestamptz,
	"partner" text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	key_column text := CASE WHEN child = 'notifications' THEN 'created_at' ELSE 'notification_created_at' END;
	moved boolean;
	columns text;
	partner_columns text;
BEGIN
	EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I >= %L AND %I < %L)', child || '_default',
		key_column, "lower", key_column, "upper") INTO moved;
	IF moved THEN
		EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', "name", child);
		EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) '
			'INSERT INTO %I SELECT * FROM moved', child || '_default', key_column, "lower", key_column, "upper", "name");
	ELSE
		EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', "name", child, "lower", "upper");
	END IF;
	IF child = 'notifications' THEN
		EXECUTE format('CREATE UNIQUE INDEX %I ON %I ("app_id", "idempotency_key")', "name" || '_app_idempotency_key', "name");
	ELSE
		IF partner LIKE '%\_legacy' THEN
			columns := CASE WHEN child = 'notification_chunk_answers'
				THEN '"notification_id", "first_subscription_id", "attempt"' ELSE '"notification_id"' END;
			partner_columns := CASE WHEN child = 'notification_chunk_answers'
				THEN '"notification_id", "first_subscription_id", "attempt"' ELSE '"id"' END;
		ELSIF child = 'notification_chunk_answers' THEN
			columns := '"notification_id", "first_subscription_id", "attempt", "app_id", "notification_created_at"';
			partner_columns := columns;
		ELSE
			columns := '"notification_id", "app_id", "notification_created_at"';
			partner_columns := '"id", "app_id", "created_at"';
		END IF;
		EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (%s) REFERENCES %I (%s) ON DELETE CASCADE %s',
			"name", "name" || '_notification_fk', columns, partner, partner_columns, CASE WHEN moved THEN 'NOT VALID' ELSE '' END);
	END IF;
	IF moved THEN
		EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', child, "name", "lower", "upper");
	END IF;
END
$$;--> statement-breakpoint
-- The partition of `parent` that covers [lower, upper) whole, if any.
CREATE FUNCTION "covering_partition"("parent" regclass, "range_lower" timestamptz, "range_upper" timestamptz)
RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT p.name FROM table_partitions("parent") p WHERE p.lower <= "range_lower" AND p.upper >= "range_upper" LIMIT 1
$$;--> statement-breakpoint
-- Makes the month partitions of this month (UTC), the `ahead` next ones and the `behind` previous
-- ones (for a restore or a test; retention never asks) that do not exist yet, of the five tables
-- (notifications_YYYY_MM, notification_chunks_YYYY_MM, ..., notification_events_YYYY_MM); returns
-- how many months it made. A month a legacy partition covers gets no partition of that table; one it
-- covers in part starts where the legacy one ends. Several callers at once wait for each other on an
-- advisory lock and the later ones find the work done.
CREATE FUNCTION "create_notification_partitions"("ahead" integer DEFAULT 2, "behind" integer DEFAULT 0)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	first_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
	month_start date;
	month_lower timestamptz;
	month_upper timestamptz;
	range_lower timestamptz;
	covered timestamptz;
	child text;
	partition_name text;
	partner text;
	made integer := 0;
	made_month boolean;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('notification_events partitions'));
	FOR i IN -behind..ahead LOOP
		month_start := (first_month + make_interval(months => i))::date;
		month_lower := month_start::timestamp AT TIME ZONE 'UTC';
		month_upper := (month_start + interval '1 month') AT TIME ZONE 'UTC';
		made_month := false;
		FOREACH child IN ARRAY ARRAY['notifications', 'notification_chunks', 'notification_chunk_answers',
			'notification_local_groups', 'notification_events'] LOOP
			partition_name := child || '_' || to_char(month_start, 'YYYY_MM');
			-- An events partition made before migration 0044 gets its key to the month's notifications.
			IF to_regclass(format('%I', partition_name)) IS NOT NULL THEN
				IF child <> 'notifications' AND NOT EXISTS (SELECT 1 FROM pg_constraint
					WHERE conrelid = to_regclass(format('%I', partition_name)) AND conname = partition_name || '_notification_fk') THEN
					SELECT p.lower INTO range_lower FROM table_partitions(child::regclass) p WHERE p.name = partition_name;
					partner := covering_partition('notifications', range_lower, month_upper);
					IF partner LIKE '%\_legacy' THEN
						EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("notification_id") '
							'REFERENCES %I ("id") ON DELETE CASCADE NOT VALID', partition_name, partition_name || '_notification_fk', partner);
					ELSIF partner IS NOT NULL THEN
						EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("notification_id", "app_id", "notification_created_at") '
							'REFERENCES %I ("id", "app_id", "created_at") ON DELETE CASCADE NOT VALID',
							partition_name, partition_name || '_notification_fk', partner);
					END IF;
				END IF;
				CONTINUE;
			END IF;
			range_lower := month_lower;
			SELECT max(p.upper) INTO covered FROM table_partitions(child::regclass) p
			WHERE p.lower < month_upper AND p.upper > month_lower;
			IF covered IS NOT NULL THEN
				CONTINUE WHEN covered >= month_upper;
				range_lower := covered;
			END IF;
			partner := CASE WHEN child = 'notifications' THEN NULL
				ELSE covering_partition(CASE WHEN child = 'notification_chunk_answers' THEN 'notification_chunks'
					ELSE 'notifications' END::regclass, range_lower, month_upper) END;
			IF child <> 'notifications' AND partner IS NULL THEN
				RAISE EXCEPTION 'no partition of the notifications covers % to % for %', range_lower, month_upper, child;
			END IF;
			PERFORM create_notification_partition(child, partition_name, range_lower, month_upper, partner);
			made_month := true;
		END LOOP;
		IF made_month THEN
			made := made + 1;
		END IF;
	END LOOP;
	RETURN made;
END
$$;--> statement-breakpoint
-- Drops, when it is due (its range ended more than `retention_days` ago and no notification
-- created in it is unfinished), the oldest month: first an events partition that lies inside a
-- longer (legacy) partition of the notifications, alone; otherwise a partition of the notifications
-- with every partition of the four others inside its range, children first. Returns the name of the
-- partition dropped (of the events, or of the notifications), or null when none is due. DROP rather
-- than DETACH: a detached partition's foreign keys become constraints of their own, which takes
-- locks on the tables they refer to; dropping it directly locks only the partitioned tables and
-- their default partitions, for the moment of the catalog change.
CREATE FUNCTION "drop_expired_notification_partition"("retention_days" integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	due timestamptz := now() - make_interval(days => retention_days);
	month record;
	child text;
	part record;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('notification_events partitions'));
	SELECT e.name INTO month FROM table_partitions('notification_events') e
	WHERE e.upper <= due AND NOT unfinished_notifications_between(e.lower, e.upper)
		AND NOT EXISTS (SELECT 1 FROM table_partitions('notifications') n WHERE n.lower = e.lower AND n.upper = e.upper)
	ORDER BY e.upper LIMIT 1;
	IF month.name IS NOT NULL THEN
		EXECUTE format('DROP TABLE %I', month.name);
		RETURN month.name;
	END IF;
	SELECT n.name, n.lower, n.upper INTO month FROM table_partitions('notifications') n
	WHERE n.upper <= due AND NOT unfinished_notifications_between(n.lower, n.upper)
	ORDER BY n.upper LIMIT 1;
	IF month.name IS NULL THEN
		RETURN NULL;
	END IF;
	FOREACH child IN ARRAY ARRAY['notification_chunk_answers', 'notification_chunks', 'notification_local_groups',
		'notification_events'] LOOP
		FOR part IN SELECT p.name FROM table_partitions(child::regclass) p
			WHERE p.lower >= month.lower AND p.upper <= month.upper LOOP
			EXECUTE format('DROP TABLE %I', part.name);
		END LOOP;
	END LOOP;
	EXECUTE format('DROP TABLE %I', month.name);
	RETURN month.name;
END
$$;--> statement-breakpoint
-- The events' own names, for the scripts that call them (docs/operations.md): the five tables' now.
DROP FUNCTION "drop_expired_notification_event_partition"(integer);--> statement-breakpoint
CREATE OR REPLACE FUNCTION "create_notification_event_partitions"("ahead" integer DEFAULT 2, "behind" integer DEFAULT 0)
RETURNS integer
LANGUAGE sql AS $$ SELECT create_notification_partitions("ahead", "behind") $$;--> statement-breakpoint
SELECT create_notification_partitions(2);
