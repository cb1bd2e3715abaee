-- The operator console: a role on users (granted by `pnpm admin grant-operator`), suspension
-- (a suspended account's keys and sessions stop authenticating; nothing is deleted, resuming
-- restores them), and the plan requests customers send from the pricing page.
ALTER TABLE "users" ADD COLUMN "role" text DEFAULT 'customer' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_check" CHECK ("role" IN ('customer', 'operator'));--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "plan_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"plan" text NOT NULL,
	"message" text,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
	CONSTRAINT "plan_requests_status_check" CHECK ("status" IN ('open', 'granted'))
);--> statement-breakpoint
-- At most one open request per account: asking again changes the plan asked for.
CREATE UNIQUE INDEX IF NOT EXISTS "plan_requests_open_user_key" ON "plan_requests" USING btree ("user_id") WHERE "status" = 'open';--> statement-breakpoint
-- The console's list of open requests, oldest first.
CREATE INDEX IF NOT EXISTS "plan_requests_open_created_idx" ON "plan_requests" USING btree ("created_at", "id") WHERE "status" = 'open';--> statement-breakpoint
-- API keys: a non-secret display prefix of the secret (`wpk_` and the next characters; null for keys
-- made before it was kept), and when the key last authenticated (written at most once a minute).
ALTER TABLE "api_keys" ADD COLUMN "display_prefix" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp with time zone;
