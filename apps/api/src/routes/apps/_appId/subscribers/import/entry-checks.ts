import type { PushHostRule } from '@webpush/config';
import type { ImportedSubscription } from '@webpush/db';
import type { ErrorCode } from '@webpush/errors';
import { isValidSubscriptionKeys } from '@webpush/push';
import { Ajv } from 'ajv';
import type { Static } from 'typebox';
import { codeForValidation, pushEndpointKeyword } from '#plugins/app/validation.js';
import { ImportEntryChecks, ImportEnvelope } from '#schemas/subscribers.js';
import { flattenKeys } from '#schemas/subscriptions.js';
import { canonicalTimeZone } from '#src/time-zone.js';

export type EntryCheck = { entry: ImportedSubscription } | { code: ErrorCode };

/**
 * The validators of an import: the list's shape for the route (the handler sees it before any
 * entry is checked, so that one bad entry refuses only itself), and each entry as POST /subscribe
 * checks its body, with the app's own AJV options and the same push-host allow-list.
 */
export function importValidators(pushServiceHosts: readonly PushHostRule[]) {
  const ajv = pushEndpointKeyword(pushServiceHosts)(
    new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, strict: false }),
  );
  const envelope = ajv.compile(ImportEnvelope);
  const entryShape = ajv.compile<Static<typeof ImportEntryChecks>>(ImportEntryChecks);

  const checkEntry = (value: unknown): EntryCheck => {
    flattenKeys(value);
    if (!entryShape(value)) return { code: codeForValidation(entryShape.errors ?? [], true) };
    const { endpoint, p256dh, auth, uid, tags, language, timeZone } = value;
    // Keys no browser could hold would take a subscriber slot and fail every push.
    if (!isValidSubscriptionKeys({ p256dh, auth })) return { code: 'INVALID_INPUT' };
    // As POST /subscribe stores it: the zone as the runtime's `Intl` names it, or INVALID_INPUT.
    let zone: string | undefined;
    try {
      zone = timeZone === undefined ? undefined : canonicalTimeZone(timeZone);
    } catch {
      return { code: 'INVALID_INPUT' };
    }
    return {
      entry: {
        endpoint,
        p256dh,
        auth,
        ...(uid === undefined ? {} : { uid }),
        ...(tags === undefined ? {} : { tags }),
        ...(language === undefined ? {} : { language }),
        ...(zone === undefined ? {} : { timeZone: zone }),
      },
    };
  };

  return { ajv, envelope, checkEntry };
}
