-- Takes `n` slots of the owner's count at once, for a statement that stores several new
-- subscriptions of the owner together, or returns false. Only the fast path of
-- `take_subscriber_slot`: one stripe nobody is writing (SKIP LOCKED, so it never waits and cannot
-- deadlock with the other writers of the stripes) whose share has room for all `n`. When there is
-- none (the owner's first subscriptions, a change of limit, stripes nearly full, or every stripe
-- being written), the caller's statement raises and its subscriptions are stored one by one through
-- `take_subscriber_slot`, whose exact path answers each of them. No subtransaction: a stripe locked
-- but failing the re-check stays locked only until the caller's statement fails.
CREATE FUNCTION "take_subscriber_slots"("owner" uuid, "max_active" integer, "n" integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	picked integer;
BEGIN
	IF n IS NULL OR n <= 0 THEN
		RETURN true;
	END IF;
	SELECT c.stripe INTO picked FROM subscriber_counters c
	WHERE c.user_id = owner AND (
		(max_active IS NULL AND c.balanced_for IS NULL)
		OR (c.balanced_for = max_active AND c.active + n <= subscriber_stripe_cap(c.stripe, max_active)))
	ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED;
	IF picked IS NULL THEN
		RETURN false;
	END IF;
	UPDATE subscriber_counters SET active = active + n WHERE user_id = owner AND stripe = picked;
	RETURN true;
END
$$;--> statement-breakpoint
-- The subscriptions' foreign key to apps goes: its check ran once per inserted subscription (a
-- query taking a key-share lock on the app's row), a seventh of a subscribe's database time when
-- measured. Every statement that stores a subscription already takes that lock itself, on the app
-- it inserts for, in the same statement (so a deleted app gets none), and deleting an app deletes
-- its subscriptions through the trigger below, in the deleting statement, whichever way the app
-- goes, as the key's ON DELETE CASCADE did.
ALTER TABLE "subscriptions" DROP CONSTRAINT IF EXISTS "subscriptions_app_id_apps_id_fk";--> statement-breakpoint
CREATE FUNCTION "delete_subscriptions_of_deleted_apps"() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	DELETE FROM subscriptions s USING deleted_apps d WHERE s.app_id = d.id;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "apps_delete_subscriptions" AFTER DELETE ON "apps"
REFERENCING OLD TABLE AS deleted_apps
FOR EACH STATEMENT EXECUTE FUNCTION "delete_subscriptions_of_deleted_apps"();--> statement-breakpoint
-- Subscriptions without tags (most of them) stay out of the tags index: a send to tags asks for
-- at least one pair, which no empty object holds, and says so (`tags <> '{}'`) to use the index.
DROP INDEX IF EXISTS "subscriptions_active_tags_idx";--> statement-breakpoint
CREATE INDEX "subscriptions_active_tags_idx" ON "subscriptions" USING gin ("tags" jsonb_path_ops)
WHERE "status" = 'active' AND "tags" <> '{}'::jsonb;
--> statement-breakpoint
-- The audience count says `tags <> '{}'` beside a containment of at least one pair, as the sends do,
-- so that the tags index, which holds only subscriptions with tags, can serve it.
CREATE OR REPLACE FUNCTION "count_active_targets"(app uuid, uids text[], tags jsonb) RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
	RETURN (
		SELECT count(*)::integer FROM "subscriptions" s
		WHERE s."app_id" = count_active_targets.app AND s."status" = 'active'
			AND (count_active_targets.uids IS NULL OR s."uid" = ANY (count_active_targets.uids))
			AND (count_active_targets.tags IS NULL OR s."tags" @> count_active_targets.tags)
			AND (count_active_targets.tags IS NULL OR count_active_targets.tags = '{}'::jsonb OR s."tags" <> '{}'::jsonb)
	);
END
$$;
