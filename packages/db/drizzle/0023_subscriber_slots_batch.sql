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
$$;
