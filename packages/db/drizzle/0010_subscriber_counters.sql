-- Per-owner counter of active subscriptions. POST /subscribe used to count the
-- owner's active subscriptions under a lock on the owner's row: a cost growing with the table, and
-- one owner's subscribes in single file for the whole transaction. Now every statement that flips a
-- subscription into or out of `active` (insert, re-activation, expiry, delete, app deletion) moves
-- this counter in the same statement, and a new or re-activated subscription reserves its slot with
-- one conditional increment (`active < limit`). The worker's drift check compares it with a real
-- count and repairs it. Deleting the user deletes the row (foreign key).
CREATE TABLE "subscriber_counters" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"active" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
ALTER TABLE "subscriber_counters" ADD CONSTRAINT "subscriber_counters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Raised inside the subscribe statement when the slot could not be reserved, so the statement (and
-- the subscription it inserted or re-activated) rolls back as a whole without a transaction block.
CREATE FUNCTION "subscriber_limit_exceeded"() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	RAISE EXCEPTION 'subscriber limit exceeded' USING ERRCODE = 'WPSL1';
END
$$;--> statement-breakpoint
INSERT INTO "subscriber_counters" ("user_id", "active")
SELECT "apps"."user_id", count(*)::integer
FROM "subscriptions" JOIN "apps" ON "apps"."id" = "subscriptions"."app_id"
WHERE "subscriptions"."status" = 'active'
GROUP BY "apps"."user_id";
