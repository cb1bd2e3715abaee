-- Teams: the people of an app besides its owner, each with a role, and the invitations that bring
-- them in. A membership goes with its app and with its user (ON DELETE CASCADE), so deleting either
-- ends the access. An invitation's token is stored only as its keyed hash, like every other token.
CREATE TABLE "app_members" (
	"app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_members_pkey" PRIMARY KEY ("app_id", "user_id"),
	CONSTRAINT "app_members_role_check" CHECK ("role" IN ('admin', 'editor', 'viewer'))
);
--> statement-breakpoint
CREATE INDEX "app_members_user_id_idx" ON "app_members" ("user_id");
--> statement-breakpoint
CREATE TABLE "app_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "app_invitations_role_check" CHECK ("role" IN ('admin', 'editor', 'viewer'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "app_invitations_token_hash_key" ON "app_invitations" ("token_hash");
--> statement-breakpoint
CREATE INDEX "app_invitations_app_id_idx" ON "app_invitations" ("app_id", "created_at");
