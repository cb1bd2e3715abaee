-- The accept statement's audience count. Inline in the prepared accept
-- statement, `count(*) … where app_id = $1` made PostgreSQL's plan cache choose between two bad
-- options once one app held most of the table: a custom plan for every execution (the whole CTE
-- planned again, +0.4 ms an accept) or, after five executions for a large app, the generic plan,
-- a sequential scan of every subscription (4 ms at 20,000 rows, growing with the table) for every
-- app on that connection from then on. Behind this function the accept statement's own plan no
-- longer depends on whose app it is, so its generic plan is kept; the count inside is planned for
-- its actual app each call (force_custom_plan: a few tens of µs), an index(-only) scan.
CREATE FUNCTION "count_active_targets"(app uuid, uids text[], tags jsonb) RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
	RETURN (
		SELECT count(*)::integer FROM "subscriptions" s
		WHERE s."app_id" = count_active_targets.app AND s."status" = 'active'
			AND (count_active_targets.uids IS NULL OR s."uid" = ANY (count_active_targets.uids))
			AND (count_active_targets.tags IS NULL OR s."tags" @> count_active_targets.tags)
	);
END
$$;
