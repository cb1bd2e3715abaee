/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: the build prerenders this file under tsx, which does not apply tsconfig's `jsx` to it.)
/**
 * The plans table. Pure markup without the router or data hooks: the build prerenders it into
 * dist/pricing.html and dist/pricing.ja.html (readable without JavaScript), and the live pricing
 * page renders the same.
 */
import type { ReactNode } from 'react';
import { type I18n, useI18n } from '../../i18n/index.js';

export interface Plan {
  id: string;
  name: string;
  limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
}

/**
 * A plan's price as GET /plans gives it: `{ amount, currency, interval }` (amount in the currency's
 * major unit), or null / absent where none is configured (the page says "contact us").
 */
export type PlanPrice = { amount: number; currency: string; interval?: 'month' | 'year' } | null;

/** The price of a plan of the list, whichever server answered (an older one sends no price). */
export const priceOf = (plan: object): PlanPrice => {
  const price = (plan as { price?: unknown }).price;
  if (typeof price !== 'object' || price === null) return null;
  const { amount, currency, interval } = price as { amount?: unknown; currency?: unknown; interval?: unknown };
  if (typeof amount !== 'number' || typeof currency !== 'string') return null;
  return { amount, currency, ...(interval === 'month' || interval === 'year' ? { interval } : {}) };
};

/** "$49 a month", "無料", or "Contact us" where the server sets no price for the plan. */
export function priceText(price: PlanPrice, planId: string, { t, language }: Pick<I18n, 't' | 'language'>): string {
  if (price === null) return planId === 'free' ? t('pricing.free') : t('pricing.contactUs');
  if (price.amount === 0) return t('pricing.free');
  const amount = new Intl.NumberFormat(language, { style: 'currency', currency: price.currency }).format(price.amount);
  if (price.interval === 'year') return t('pricing.perYear', { amount });
  if (price.interval === 'month') return t('pricing.perMonth', { amount });
  return amount;
}

/** The operator's own text for a plan's price (`PLAN_PRICE_*`), shown as written in both languages. */
export function configuredPriceText(price: string | null, planId: string, i18n: Pick<I18n, 't' | 'language'>): string {
  if (price === '0') return i18n.t('pricing.free');
  return price === null ? priceText(null, planId, i18n) : price;
}

/** The element id of the plans JSON embedded in dist/pricing.html (a data block, never executed). */
export const PRERENDERED_PLANS_ID = 'prerendered-plans';

/**
 * `action` renders each plan's call to action (the live page's "Request this plan"; null for none);
 * without one (the prerendered page, nobody signed in) each plan links to sign-in.
 */
export function PricingTable({
  plans,
  currentPlan,
  action,
  prices,
}: {
  plans: Plan[];
  currentPlan: string | null;
  action?: (plan: Plan) => ReactNode;
  /** GET /plans/prices: the operator's text per plan (`"0"` is free of charge, null "contact us"). */
  prices?: Readonly<Record<string, string | null>>;
}) {
  const i18n = useI18n();
  const { t, plural } = i18n;
  const limit = (value: number | null, key: 'apps' | 'subscribers' | 'sends') =>
    value === null ? t(`pricing.${key}Unlimited`) : plural(`pricing.${key}.other`, value);
  return (
    <>
      <h1>{t('pricing.heading')}</h1>
      <p className="muted">{t('pricing.lead')}</p>
      <ul className="plan-grid" aria-label={t('pricing.plans')}>
        {plans.map((plan) => {
          const current = plan.id === currentPlan;
          return (
            <li
              key={plan.id}
              className={current ? 'plan plan-current' : 'plan'}
              aria-current={current ? 'true' : undefined}
            >
              <h2 className="plan-name">
                {plan.name}
                {current && <span className="badge">{t('pricing.yourPlan')}</span>}
              </h2>
              <p className="plan-price" data-testid="plan-price">
                {prices && plan.id in prices
                  ? configuredPriceText(prices[plan.id] ?? null, plan.id, i18n)
                  : priceText(priceOf(plan), plan.id, i18n)}
              </p>
              <ul className="plan-limits">
                <li>{limit(plan.limits.apps, 'apps')}</li>
                <li>{limit(plan.limits.subscribers, 'subscribers')}</li>
                <li>{limit(plan.limits.sendsPerMonth, 'sends')}</li>
              </ul>
              <p className="plan-id muted">
                {t('pricing.planId')} <code>{plan.id}</code>
              </p>
              {!current && action?.(plan) !== null && (
                <div className="plan-action">
                  {action ? (
                    action(plan)
                  ) : (
                    <a className="button" href="/sign-in">
                      {t('pricing.signInToRequest')}
                    </a>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      <section className="panel">
        <h2>{t('pricing.changingHeading')}</h2>
        <p>{t('pricing.changingBody')}</p>
        <p className="muted">{t('pricing.sendsNote')}</p>
      </section>
    </>
  );
}
