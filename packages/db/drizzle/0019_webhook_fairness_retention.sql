-- Retention (the worker's clean-up pass deletes in small batches; each batch must be an index range
-- scan, not a scan of the whole table). Finished notifications by age, and webhook events by age.
-- The children of a notification are found by their keys' first column (notification_id): the
-- primary keys of notification_events and notification_chunks and notification_chunk_answers_chunk_idx.
CREATE INDEX IF NOT EXISTS "notifications_finished_created_idx" ON "notifications" USING btree ("created_at") WHERE "status" in ('completed', 'failed', 'canceled');--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_messages_created_idx" ON "webhook_messages" USING btree ("created_at");
