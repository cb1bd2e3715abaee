-- Two-factor sign-in (RFC 6238 TOTP). The secret is sealed under ENCRYPTION_KEY like the other
-- secrets; it is set by the setup step and counts only once `totp_enabled_at` is set by a code that
-- matches it. `totp_last_step` is the 30-second step of the last code that signed in: a code of that
-- step or an earlier one does not sign in again (RFC 6238 section 5.2).
ALTER TABLE "users" ADD COLUMN "totp_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
-- Recovery codes: ten per enabling, stored only as keyed hashes, each spent by the one UPDATE that
-- redeems it.
CREATE TABLE "totp_recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "totp_recovery_codes_user_code_key" ON "totp_recovery_codes" ("user_id", "code_hash");
