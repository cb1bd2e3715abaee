-- The count of a send to every subscriber (`all`, most sends), with one plan for every app, made once
-- per connection. `count_active_targets` plans its count again on every call (force_custom_plan,
-- migration 0012), because a cached generic plan of `app_id = $1` becomes a sequential scan of every
-- app's subscriptions once one app holds most of the table. For `all` the right plan never depends on
-- the app: an index-only scan of `subscriptions_app_active_idx` (app, id) over the active
-- subscriptions. So here the generic plan is kept and the planner may not choose a scan of the table
-- or a bitmap: planning 60-200 µs on every accept becomes a cached plan (11 µs a call in a loop on
-- a 2-vCPU VM, against 61-72 µs for `count_active_targets`).
CREATE FUNCTION "count_active_subscribers"(app uuid) RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
	RETURN (
		SELECT count(*)::integer FROM "subscriptions" s
		WHERE s."app_id" = count_active_subscribers.app AND s."status" = 'active'
	);
END
$$;
