/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: tsx runs this file for the build and does not apply tsconfig's `jsx` setting to it.)
import { planDisplayNames, planNames, plans } from '@webpush/plans';
import { renderToString } from 'react-dom/server';
import { type Plan, PRERENDERED_PLANS_ID, PricingTable } from '../src/pages/pricing-table.js';

/** The plans as GET /api/v1/plans answers them (apps/api/src/routes/plans), from the plans package. */
export function planList(): Plan[] {
  return planNames.map((id) => ({
    id,
    name: planDisplayNames[id],
    limits: {
      apps: plans[id].apps,
      subscribers: plans[id].activeSubscribers,
      sendsPerMonth: plans[id].sendsPerMonth,
    },
  }));
}

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * dist/pricing.html: the built index.html with the plans table already in it, so /pricing reads
 * without JavaScript (and for crawlers); the app then takes over and marks the signed-in user's plan.
 */
export function prerenderPricing(indexHtml: string): string {
  const list = planList();
  const header =
    '<header class="site-header"><div class="container header-row"><a class="brand" href="/">' +
    '<span class="brand-mark" aria-hidden="true"></span>Web Push</a><nav aria-label="Main"><ul class="nav-list">' +
    '<li><a href="/pricing" aria-current="page">Pricing</a></li><li><a href="/docs">API docs</a></li>' +
    '<li><a href="/sign-in">Sign in</a></li></ul></nav></div></header>';
  const table = renderToString(<PricingTable plans={list} currentPlan={null} />);
  const markup = `${header}<main id="main" class="container">${table}</main>`;
  const data = `<script type="application/json" id="${PRERENDERED_PLANS_ID}">${escapeJson({ plans: list })}</script>`;
  if (!indexHtml.includes('<!--app-->')) throw new Error('index.html lost its <!--app--> placeholder');
  return indexHtml
    .replace('<!--app-->', markup)
    .replace('</body>', `${data}\n  </body>`)
    .replace(/<title>[^<]*<\/title>/, '<title>Pricing · Web Push</title>');
}
