import type { DeliverableSubscription, DeliveryContext } from '@webpush/db';
import { type ClickTokens, variantContent } from '@webpush/push';
import { type BrowserPayload, browserPayload, browserPayloads } from './browser-payload.js';

/**
 * What each subscription of a chunk receives: the variant the plan drew for it in an A/B test
 * (docs/engagement.md), else the text of its language. A send with variants has no translations
 * (the API refuses the two together), so one choice or the other decides. Each distinct payload is
 * built once per chunk.
 */
export function subscriptionPayloads(
  delivery: DeliveryContext,
  clickTokens: ClickTokens | null,
  publicUrl: string,
): (subscription: DeliverableSubscription) => BrowserPayload {
  const { payload } = delivery.notification;
  const variants = payload.variants ?? [];
  if (variants.length === 0) {
    const ofLanguage = browserPayloads(delivery, clickTokens, publicUrl);
    return (subscription) => ofLanguage(subscription.language);
  }
  const built = new Map<string, BrowserPayload>();
  return (subscription) => {
    // A chunk planned before its send had letters (none are) would get the send's own content.
    const letter = subscription.variant ?? 'A';
    let chosen = built.get(letter);
    if (!chosen) {
      chosen = browserPayload(delivery, clickTokens, publicUrl, variantContent(payload, variants, letter));
      built.set(letter, chosen);
    }
    return chosen;
  };
}

/**
 * How many distinct payloads a chunk of this send may hold: its variants (A and the others), else
 * its own text and each translation's.
 */
export function distinctPayloads(delivery: DeliveryContext): number {
  const { payload } = delivery.notification;
  const variants = payload.variants?.length ?? 0;
  return variants > 0 ? variants + 1 : 1 + Object.keys(payload.translations ?? {}).length;
}
