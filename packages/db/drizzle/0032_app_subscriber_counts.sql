-- An exact count of each app's active subscriptions, so accepting a send to all of an app reads a
-- few rows instead of counting its subscriptions (docs/scaling.md). The count is the sum of the
-- app's stripes (at most 16): a change adds to a stripe no other transaction is writing, so one
-- app's concurrent subscribes do not wait for each other's commits on a single row.
--
-- Triggers on `subscriptions` keep it, in the statement that changes a subscription: every insert,
-- status change and delete is counted whichever code path runs it (subscribe, the batched subscribe,
-- re-activation, expiry and retirement by the worker, DELETE /subscribe, app deletion, imports,
-- erasure), so nothing new has to remember it. Inserts and deletes are counted once per statement
-- from their transition tables; a status change row by row, only when the status changes (other
-- updates, such as refusal streaks or audience changes, cost nothing).
CREATE TABLE "app_subscriber_counts" (
	"app_id" uuid NOT NULL,
	"stripe" smallint NOT NULL,
	"active" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "app_subscriber_counts_pkey" PRIMARY KEY ("app_id", "stripe"),
	CONSTRAINT "app_subscriber_counts_stripe_check" CHECK ("stripe" >= 0 AND "stripe" < 16)
);--> statement-breakpoint
ALTER TABLE "app_subscriber_counts" ADD CONSTRAINT "app_subscriber_counts_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Adds `delta` to the app's count: to a stripe nobody else is writing, else (all being written, or
-- none made yet) to a random one, made if missing. Nothing for an app deleted by this transaction
-- (its subscriptions deleted by the foreign key's cascade) or by another one.
CREATE FUNCTION "add_active_subscribers"("app" uuid, "delta" bigint) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	picked smallint;
BEGIN
	IF app IS NULL OR delta IS NULL OR delta = 0 THEN
		RETURN;
	END IF;
	SELECT c.stripe INTO picked FROM app_subscriber_counts c WHERE c.app_id = app
	ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF picked IS NOT NULL THEN
		UPDATE app_subscriber_counts SET active = active + delta WHERE app_id = app AND stripe = picked;
		RETURN;
	END IF;
	INSERT INTO app_subscriber_counts (app_id, stripe, active)
	SELECT app, floor(random() * 16)::smallint, delta WHERE EXISTS (SELECT 1 FROM apps WHERE id = app)
	ON CONFLICT (app_id, stripe) DO UPDATE SET active = app_subscriber_counts.active + excluded.active;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_inserted_subscribers"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, count(*) AS n FROM inserted WHERE status = 'active' GROUP BY app_id ORDER BY app_id
	LOOP
		PERFORM add_active_subscribers(changed.app_id, changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_deleted_subscribers"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	changed record;
BEGIN
	FOR changed IN
		SELECT app_id, count(*) AS n FROM deleted WHERE status = 'active' GROUP BY app_id ORDER BY app_id
	LOOP
		PERFORM add_active_subscribers(changed.app_id, -changed.n);
	END LOOP;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "count_subscriber_status_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.status = 'active' THEN
		PERFORM add_active_subscribers(NEW.app_id, 1);
	ELSIF OLD.status = 'active' THEN
		PERFORM add_active_subscribers(OLD.app_id, -1);
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_inserted" AFTER INSERT ON "subscriptions"
REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_subscribers();--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_deleted" AFTER DELETE ON "subscriptions"
REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_subscribers();--> statement-breakpoint
CREATE TRIGGER "subscriptions_count_status_change" AFTER UPDATE OF "status" ON "subscriptions"
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION count_subscriber_status_change();--> statement-breakpoint
-- The count as it is now (the triggers above take a lock that makes writers wait until this
-- migration commits, so no change falls between the two).
INSERT INTO "app_subscriber_counts" ("app_id", "stripe", "active")
SELECT "app_id", 0, count(*) FROM "subscriptions" WHERE "status" = 'active' GROUP BY "app_id";--> statement-breakpoint
-- Recounts one app under all its stripes' locks (a fresh count in READ COMMITTED sees every change
-- committed before the locks were taken, and none can commit meanwhile): for repairs after a bulk
-- load with triggers disabled (`session_replication_role = replica`), and for tests.
CREATE FUNCTION "recount_active_subscribers"("app" uuid) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	counted bigint;
BEGIN
	INSERT INTO app_subscriber_counts (app_id, stripe, active)
	SELECT app, g, 0 FROM generate_series(0, 15) g WHERE EXISTS (SELECT 1 FROM apps WHERE id = app)
	ON CONFLICT (app_id, stripe) DO NOTHING;
	PERFORM 1 FROM app_subscriber_counts WHERE app_id = app ORDER BY stripe FOR UPDATE;
	SELECT count(*) INTO counted FROM subscriptions WHERE app_id = app AND status = 'active';
	UPDATE app_subscriber_counts SET active = CASE WHEN stripe = 0 THEN counted ELSE 0 END WHERE app_id = app;
	RETURN counted;
END
$$;--> statement-breakpoint
-- The accept of a send to all of an app (and the audience count of `all`) now reads the count: at
-- most 16 rows by the primary key, with one plan cached per connection that no statistics (or their
-- absence, on a table nothing has analyzed yet) can turn into a scan of the table.
CREATE OR REPLACE FUNCTION "count_active_subscribers"(app uuid) RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
	RETURN (
		SELECT coalesce(sum(c."active"), 0)::integer FROM "app_subscriber_counts" c
		WHERE c."app_id" = count_active_subscribers.app
	);
END
$$;
