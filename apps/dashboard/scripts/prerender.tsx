/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: tsx runs this file for the build and does not apply tsconfig's `jsx` setting to it.)
import { publicPlanList } from '@webpush/plans';
import { renderToString } from 'react-dom/server';
import { PRERENDERED_PLANS_ID, PricingTable } from '../src/features/pricing/pricing-table.js';
import { format, I18nProvider, type Language, type MessageKey } from '../src/i18n/index.js';

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The built index.html in `language`: `<html lang>`, the description and the <noscript> note. */
export function localizeIndex(indexHtml: string, language: Language): string {
  const t = (key: MessageKey) => escapeHtml(format(language, key));
  const replaced = indexHtml
    .replace(/<html lang="[^"]*">/, `<html lang="${language}">`)
    .replace(
      /<meta name="description" content="[^"]*" \/>/,
      `<meta name="description" content="${t('page.description')}" />`,
    )
    .replace(
      /<noscript>[\s\S]*?<\/noscript>/,
      `<noscript>${t('page.noscript')} <a href="/pricing">${t('page.noscriptLink')}</a></noscript>`,
    );
  if (!replaced.includes(`<html lang="${language}">`)) throw new Error('index.html lost its <html lang>');
  return replaced;
}

/**
 * dist/pricing.html (English) and dist/pricing.ja.html: the built index.html with the plans table
 * already in it, so /pricing reads without JavaScript (and for crawlers) in the language the API
 * picks; the app then takes over and marks the signed-in user's plan.
 */
export function prerenderPricing(indexHtml: string, language: Language): string {
  const list = publicPlanList();
  const t = (key: MessageKey) => escapeHtml(format(language, key));
  const header =
    '<header class="site-header"><div class="container header-row"><a class="brand" href="/">' +
    `<span class="brand-mark" aria-hidden="true"></span>${t('common.brand')}</a><nav aria-label="${t('layout.mainNav')}"><ul class="nav-list">` +
    `<li><a href="/pricing" aria-current="page">${t('layout.pricing')}</a></li><li><a href="/docs">${t('layout.apiDocs')}</a></li>` +
    `<li><a href="/sign-in">${t('layout.signIn')}</a></li></ul></nav></div></header>`;
  const table = renderToString(
    <I18nProvider initial={language}>
      <PricingTable plans={list} currentPlan={null} />
    </I18nProvider>,
  );
  const markup = `${header}<main id="main" class="container">${table}</main>`;
  const data = `<script type="application/json" id="${PRERENDERED_PLANS_ID}">${escapeJson({ plans: list })}</script>`;
  if (!indexHtml.includes('<!--app-->')) throw new Error('index.html lost its <!--app--> placeholder');
  const title = escapeHtml(format(language, 'common.titleSuffix', { page: format(language, 'pricing.title') }));
  return localizeIndex(indexHtml, language)
    .replace('<!--app-->', markup)
    .replace('</body>', `${data}\n  </body>`)
    .replace(/<title>[^<]*<\/title>/, `<title>${title}</title>`);
}
