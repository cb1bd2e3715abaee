-- The webhook attempts in flight per app, counted across every worker process when the queues live
-- in PostgreSQL (QUEUE_BACKEND=postgres: no Redis for the worker, and several workers may share the
-- queues). One row per attempt, with a lease: a worker that dies holding a slot frees it when the
-- lease ends. Unlogged: the rows are worth nothing after a crash of PostgreSQL (every attempt in
-- flight ended with it), so they cost no WAL.
CREATE UNLOGGED TABLE "webhook_app_slots" (
	"app_id" uuid NOT NULL,
	"token" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_app_slots_pkey" PRIMARY KEY ("app_id", "token")
);--> statement-breakpoint
ALTER TABLE "webhook_app_slots" ADD CONSTRAINT "webhook_app_slots_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Takes one of the app's `slots` slots for `slot` until `lease_ms` from now. Returns -1 when it
-- did, or else how long (ms) the oldest attempt holding one has been running. Two workers asking
-- for the same app's last slot take turns on the app's advisory lock, so they cannot both count
-- one slot free; the lock ends with the calling statement's transaction.
CREATE FUNCTION "take_webhook_slot"("app" uuid, "slot" uuid, "slots" int, "lease_ms" int) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	lease interval := make_interval(secs => lease_ms / 1000.0);
	held int;
	oldest timestamptz;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtextextended('webhook-app-slots:' || app::text, 0));
	DELETE FROM webhook_app_slots s WHERE s.app_id = app AND s.expires_at <= clock_timestamp();
	SELECT count(*), min(s.expires_at) INTO held, oldest FROM webhook_app_slots s WHERE s.app_id = app;
	IF held >= slots THEN
		RETURN greatest(0, floor(extract(epoch FROM clock_timestamp() - (oldest - lease)) * 1000))::bigint;
	END IF;
	INSERT INTO webhook_app_slots (app_id, token, expires_at) VALUES (app, slot, clock_timestamp() + lease);
	RETURN -1;
END
$$;
