-- VAPID key rotation. An app's current key stays in `apps` (with its version number); rotating it
-- moves the current key into `retired_vapid_keys` and puts a new one in its place. Every
-- subscription records the version of the key it was made with, so it is pushed with that key until
-- it subscribes again. Existing apps and subscriptions are version 1: the columns have constant
-- defaults, so adding them rewrites no rows.
CREATE TABLE "retired_vapid_keys" (
	"app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
	"version" integer NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"retired_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "retired_vapid_keys_pkey" PRIMARY KEY ("app_id", "version")
);--> statement-breakpoint
CREATE UNIQUE INDEX "retired_vapid_keys_app_public_key" ON "retired_vapid_keys" ("app_id", "public_key");--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "vapid_key_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "vapid_key_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Why pushes failed, per push-service answer ("403 BadJwtToken": 12), counted as chunks complete.
ALTER TABLE "notifications" ADD COLUMN "failure_reasons" jsonb DEFAULT '{}'::jsonb NOT NULL;
