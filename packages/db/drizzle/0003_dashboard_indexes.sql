DROP INDEX "notifications_app_created_idx";--> statement-breakpoint
CREATE INDEX "subscriptions_app_created_idx" ON "subscriptions" USING btree ("app_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "subscriptions_app_status_created_idx" ON "subscriptions" USING btree ("app_id","status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "notifications_app_created_idx" ON "notifications" USING btree ("app_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);