-- Expired and retired subscriptions are deleted after EXPIRED_SUBSCRIPTION_RETENTION_DAYS by the
-- retention pass (docs/operations.md): this index finds the oldest of them without reading the
-- active ones. Partial, so it holds only expired subscriptions and costs nothing on subscribe.
CREATE INDEX "subscriptions_expired_at_idx" ON "subscriptions" USING btree ("expired_at") WHERE "status" = 'expired';
