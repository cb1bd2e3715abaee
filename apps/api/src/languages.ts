import type { FastifyRequest } from 'fastify';

/**
 * The languages of the dashboard, /pricing and the account e-mails (docs/accounts.md, docs/dashboard.md).
 * Japanese first; English for everyone whose browser does not prefer Japanese.
 */
export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const isLanguage = (value: unknown): value is Language => value === 'ja' || value === 'en';

/** The cookie the dashboard sets when a person picks a language (not a secret; see the dashboard). */
export const LANGUAGE_COOKIE = 'wp_lang';

/**
 * The language an `Accept-Language` header prefers among ours: the highest `q` of the ranges that
 * match `ja` or `en` (`ja-JP` matches `ja`; `*` matches English), the earlier range on a tie.
 * Nothing of ours asked for → English.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  let best: { language: Language; q: number } | null = null;
  for (const part of header.split(',').slice(0, 50)) {
    const [range = '', ...params] = part.trim().split(';');
    const tag = range.trim().toLowerCase();
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const primary = tag.split('-', 1)[0];
    const language: Language | null = primary === 'ja' ? 'ja' : primary === 'en' || tag === '*' ? 'en' : null;
    if (language && (!best || q > best.q)) best = { language, q };
  }
  return best?.language ?? DEFAULT_LANGUAGE;
}

/** A page's language: the person's pick (the `wp_lang` cookie), else the browser's Accept-Language. */
export function requestLanguage(request: FastifyRequest): Language {
  const picked = (request.cookies as Record<string, string | undefined> | undefined)?.[LANGUAGE_COOKIE];
  if (isLanguage(picked)) return picked;
  return negotiateLanguage(request.headers['accept-language']);
}
