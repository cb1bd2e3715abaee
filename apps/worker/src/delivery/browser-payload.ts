import type { DeliveryContext, NotificationPayload } from '@webpush/db';
import {
  CLICK_TOKEN_LENGTH,
  type ClickTokens,
  declarativeTemplate,
  fillTemplate,
  legacyPayload,
  type TemplateLinks,
  templateSlots,
  translatedContent,
  translationChooser,
} from '@webpush/push';

/**
 * What one notification's browsers receive (docs/sending.md): the same legacy JSON for every target,
 * or a declarative push message whose click links are signed for each target. Every token has the
 * same length, so the encryption threads fill the holes of one template instead of receiving a
 * payload per target.
 */
export interface BrowserPayload {
  /** The shared plaintext, or the template (holes included) when `links` is used. */
  readonly template: Buffer;
  /** The plaintext one subscription receives (for the sender's own encryption). */
  textFor(subscriptionId: string): string;
  /**
   * A plaintext as long as every target's (placeholder tokens in a declarative one): all the sender
   * reads of the text when the encryption pool already encrypted the body, so no target's click
   * tokens are signed on the event loop for it.
   */
  readonly sizedText: string;
  /** What the encryption pool needs to sign each target's click tokens; undefined when every target gets `template`. */
  linksFor(subscriptionIds: readonly string[]): TemplateLinks | undefined;
}

/** `${PUBLIC_URL}/c/`: where click links point. */
export const clickLinkBase = (publicUrl: string) => `${publicUrl}/c/`;

/**
 * What a subscription of a given language receives: the send's own payload, or the one of its
 * translation (docs/sending.md, "One send in several languages"). Each distinct text is built once
 * per chunk; choosing costs two map lookups a target.
 */
export function browserPayloads(
  delivery: DeliveryContext,
  clickTokens: ClickTokens | null,
  publicUrl: string,
): (language: string | null) => BrowserPayload {
  const { payload } = delivery.notification;
  const own = browserPayload(delivery, clickTokens, publicUrl);
  const translations = payload.translations;
  if (translations === undefined) return () => own;
  const choose = translationChooser(translations);
  const built = new Map<string, BrowserPayload>();
  return (language) => {
    const key = choose(language);
    if (key === null) return own;
    let translated = built.get(key);
    if (!translated) {
      const content = translatedContent(payload, translations[key]);
      translated = browserPayload(delivery, clickTokens, publicUrl, content);
      built.set(key, translated);
    }
    return translated;
  };
}

export function browserPayload(
  delivery: DeliveryContext,
  clickTokens: ClickTokens | null,
  publicUrl: string,
  content: NotificationPayload = delivery.notification.payload,
): BrowserPayload {
  const { notification, app } = delivery;
  if (app.pushFormat !== 'declarative' || clickTokens === null) {
    const text = legacyPayload(content, notification.id);
    const template = Buffer.from(text, 'utf8');
    return { template, textFor: () => text, sizedText: text, linksFor: () => undefined };
  }
  const shape = declarativeTemplate(content, notification.id, clickLinkBase(publicUrl));
  const slots = templateSlots(shape);
  const tokenOf = (subscriptionId: string) => (link: number) =>
    clickTokens.sign({ notificationId: notification.id, subscriptionId, link });
  const sizedText = fillTemplate(shape, () => '-'.repeat(CLICK_TOKEN_LENGTH));
  return {
    template: Buffer.from(sizedText, 'utf8'),
    textFor: (subscriptionId) => fillTemplate(shape, tokenOf(subscriptionId)),
    sizedText,
    // The threads sign the tokens: the event loop only hands over the ids.
    linksFor: (subscriptionIds) => ({
      key: clickTokens.key,
      notificationId: notification.id,
      subscriptionIds,
      slots,
      links: shape.links,
    }),
  };
}
