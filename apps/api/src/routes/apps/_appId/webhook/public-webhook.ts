import type { Webhook } from '@webpush/db';

/** A webhook as the API shows it (never its signing secret). */
export const publicWebhook = (webhook: Webhook) => ({ url: webhook.url, events: webhook.events });
