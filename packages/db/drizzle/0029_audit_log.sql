-- Who did what: one row per change, written in the transaction of the change it records (a change
-- that rolls back leaves none). Rows belong to an app's log (`app_id`) or to an account's own log
-- (`user_id`). Neither is a foreign key: deleting the app or the account must not take its record
-- with it, and the log outlives both.
CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY DEFAULT uuid_time_ordered() NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"app_id" uuid,
	"user_id" uuid,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	CONSTRAINT "audit_log_actor_type_check" CHECK ("actor_type" IN ('user', 'key', 'operator')),
	CONSTRAINT "audit_log_owner_check" CHECK ("app_id" IS NOT NULL OR "user_id" IS NOT NULL)
);
--> statement-breakpoint
CREATE INDEX "audit_log_app_idx" ON "audit_log" ("app_id", "at" DESC, "id" DESC) WHERE "app_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "audit_log_user_idx" ON "audit_log" ("user_id", "at" DESC, "id" DESC) WHERE "user_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" ("at");
--> statement-breakpoint
-- Append-only, whoever connects: an entry is never changed, and deleted only once it is older than
-- 365 days (the retention's floor, docs/security.md). TRUNCATE is the database owner's own act.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' AND OLD.at < now() - interval '365 days' THEN
		RETURN OLD;
	END IF;
	RAISE EXCEPTION 'audit_log entries cannot be changed or deleted (%)', TG_OP
		USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
