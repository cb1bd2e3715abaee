import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isAllowedHost, isPublicAddress, unbracket } from './address-policy.js';

export interface TargetPolicy {
  /** `WEBHOOK_ALLOWED_HOSTS`: hosts (or host:port) exempt from the address rules, also over http. */
  allowedHosts: readonly string[];
}

export type TargetCheck =
  | { ok: true; url: URL; exempt: boolean }
  | { ok: false; reason: 'invalid_url' | 'not_https' | 'refused_address' };

/** The URL's scheme and host rules, without resolving: what can be said from the text alone. */
export function checkWebhookUrlSyntax(raw: string, policy: TargetPolicy): TargetCheck {
  if (!URL.canParse(raw)) return { ok: false, reason: 'invalid_url' };
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'invalid_url' };
  const exempt = isAllowedHost(url, policy.allowedHosts);
  if (url.protocol !== 'https:' && !(exempt && url.protocol === 'http:')) return { ok: false, reason: 'not_https' };
  if (exempt) return { ok: true, url, exempt };
  const host = unbracket(url.hostname);
  if (isIP(host) !== 0 && !isPublicAddress(host)) return { ok: false, reason: 'refused_address' };
  return { ok: true, url, exempt };
}

/**
 * The whole check of `PUT /apps/{appId}/webhook`: syntax, then resolution. A name that resolves
 * only to refused addresses is refused; one that does not resolve (yet, or within
 * `resolveTimeoutMs`) is accepted, since every connection checks again at connect time anyway.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: TargetPolicy,
  resolveTimeoutMs = 3_000,
): Promise<TargetCheck> {
  const syntax = checkWebhookUrlSyntax(raw, policy);
  if (!syntax.ok || syntax.exempt) return syntax;
  const host = unbracket(syntax.url.hostname);
  if (isIP(host) !== 0) return syntax;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), resolveTimeoutMs);
  });
  const resolved = await Promise.race([lookup(host, { all: true, verbatim: true }).catch(() => null), timeout]);
  clearTimeout(timer);
  if (resolved === null || resolved.length === 0) return syntax;
  if (!resolved.some((entry) => isPublicAddress(entry.address))) return { ok: false, reason: 'refused_address' };
  return syntax;
}
