-- Progress inside a delivery chunk as rows appended while it is sent.
-- Until now each progress write merged its answers into arrays on the chunk's row, and with several
-- chunks of 500 sent at once a chunk's row was rewritten ~20 times: every write copied its growing
-- TOASTed `answered_subscription_ids`, tried to compress it, and compared each new answer with every
-- earlier one (5 subqueries each detoasting the array again). PostgreSQL spent ~12 µs of CPU a push
-- on it, as much as the worker's own cost. A write now inserts one small row per chunk (inline, no
-- TOAST, no comparison); a re-run reads the chunk's rows, and the outcome transaction folds them into
-- the chunk's row, de-duplicated once, and deletes them.
CREATE TABLE "notification_chunk_answers" (
	"notification_id" uuid NOT NULL,
	"first_subscription_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"subscription_ids" uuid[] NOT NULL,
	"kinds" text[] NOT NULL,
	"retry_after_ms" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "notification_chunk_answers_chunk_fk" FOREIGN KEY ("notification_id","first_subscription_id","attempt")
		REFERENCES "notification_chunks"("notification_id","first_subscription_id","attempt") ON DELETE CASCADE
);--> statement-breakpoint
CREATE INDEX "notification_chunk_answers_chunk_idx" ON "notification_chunk_answers" ("notification_id","first_subscription_id","attempt");
