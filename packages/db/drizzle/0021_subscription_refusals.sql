-- Push services' permanent refusals of a subscription in a row (a 4xx it causes itself: not 429, not
-- the sender's VAPID/JWT, payload-size or header errors; 404/410 expire it at once). A sent push sets
-- it back to 0; at RETIRE_AFTER_REFUSALS the subscription is retired as an expired one is. A smallint
-- with a constant default: adding it rewrites no row.
ALTER TABLE "subscriptions" ADD COLUMN IF NOT EXISTS "refusals" smallint DEFAULT 0 NOT NULL;
