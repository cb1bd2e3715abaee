-- New notifications get time-ordered ids, like subscriptions (migration 0024): the accept path
-- makes them in the API (a version 7 UUID, RFC 9562) and this default makes them the same way for
-- any other insert. With random ids each accept put its primary-key entry on a page of its own, so
-- after every checkpoint nearly each accept wrote a whole index page to the WAL: 4.2 kB of WAL an
-- accept against 0.9 kB with time-ordered ids, measured at 300,000 notifications
-- (docs/performance.md). The events' and chunks' indexes, which lead with the notification id,
-- take new entries at their right edge the same way. Ids already stored stay as they are.
ALTER TABLE "notifications" ALTER COLUMN "id" SET DEFAULT uuid_time_ordered();
