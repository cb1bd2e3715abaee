-- Signed audiences: an app may require tags from subscribe_only keys to be signed, and may require
-- every uid/tags signature to carry an expiry. Both off for every existing and new app.
ALTER TABLE "apps" ADD COLUMN IF NOT EXISTS "require_signed_tags" boolean NOT NULL DEFAULT false;
--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN IF NOT EXISTS "signatures_expire" boolean NOT NULL DEFAULT false;
