ALTER TABLE "notifications" ADD COLUMN "planned" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "plan_cursor" uuid;--> statement-breakpoint
-- Notifications still being fanned out when this migration runs carry their progress over.
UPDATE "notifications" AS n SET
  "planned" = p.planned,
  "plan_cursor" = p.cursor
FROM (
  SELECT "notification_id", sum(cardinality("subscription_ids"))::integer AS planned, max("last_subscription_id"::text)::uuid AS cursor
  FROM "notification_chunks" WHERE "attempt" = 1 GROUP BY "notification_id"
) AS p
WHERE n."id" = p."notification_id" AND n."fanned_out_at" IS NULL;
