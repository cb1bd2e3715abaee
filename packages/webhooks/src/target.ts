import { isIP } from 'node:net';
import { isAllowedHost, isPublicAddress, unbracket } from './address-policy.js';
import { createNameResolver, isLocalhostName, type NameResolver } from './resolver.js';

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

let systemResolver: NameResolver | undefined;

/**
 * The whole check of `PUT /apps/{appId}/webhook`: syntax, then resolution (through `resolve`, a
 * c-ares resolver, never the thread pool). A local name, or one that resolves only to refused
 * addresses, is refused; one that does not resolve (yet, or within `timeoutMs`) is accepted,
 * since every connection checks again at connect time anyway.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: TargetPolicy,
  options: { resolve?: NameResolver; timeoutMs?: number } = {},
): Promise<TargetCheck> {
  const syntax = checkWebhookUrlSyntax(raw, policy);
  if (!syntax.ok || syntax.exempt) return syntax;
  const host = unbracket(syntax.url.hostname);
  if (isIP(host) !== 0) return syntax;
  if (isLocalhostName(host)) return { ok: false, reason: 'refused_address' };
  const timeoutMs = options.timeoutMs ?? 3_000;
  systemResolver ??= createNameResolver({ timeoutMs });
  const resolve = options.resolve ?? systemResolver;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), timeoutMs);
  });
  const resolved = await Promise.race([resolve(host).catch(() => null), timeout]);
  clearTimeout(timer);
  if (resolved === null || resolved.length === 0) return syntax;
  if (!resolved.some((entry) => isPublicAddress(entry.address))) return { ok: false, reason: 'refused_address' };
  return syntax;
}
