-- The language of an account's e-mails (and its dashboard, once picked): 'ja' or 'en'. Chosen at
-- registration from Accept-Language; accounts from before keep Japanese, the service's first language.
ALTER TABLE "users" ADD COLUMN "language" text DEFAULT 'ja' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_language_check" CHECK ("language" IN ('ja', 'en'));
