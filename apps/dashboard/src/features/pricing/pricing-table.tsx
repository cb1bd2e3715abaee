/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: the build prerenders this file under tsx, which does not apply tsconfig's `jsx` to it.)
/**
 * The plans table. Pure markup without the router or data hooks: the build prerenders it into
 * dist/pricing.html and dist/pricing.ja.html (readable without JavaScript), and the live pricing
 * page renders the same.
 */
import type { ReactNode } from 'react';
import { useI18n } from '../../i18n/index.js';

export interface Plan {
  id: string;
  name: string;
  limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
}

/** The element id of the plans JSON embedded in dist/pricing.html (a data block, never executed). */
export const PRERENDERED_PLANS_ID = 'prerendered-plans';

/**
 * `action` renders each plan's call to action (the live page's "Request this plan"); without one
 * (the prerendered page, nobody signed in) each plan links to sign-in.
 */
export function PricingTable({
  plans,
  currentPlan,
  action,
}: {
  plans: Plan[];
  currentPlan: string | null;
  action?: (plan: Plan) => ReactNode;
}) {
  const { t, plural } = useI18n();
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
              <ul className="plan-limits">
                <li>{limit(plan.limits.apps, 'apps')}</li>
                <li>{limit(plan.limits.subscribers, 'subscribers')}</li>
                <li>{limit(plan.limits.sendsPerMonth, 'sends')}</li>
              </ul>
              <p className="plan-id muted">
                {t('pricing.planId')} <code>{plan.id}</code>
              </p>
              {!current && (
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
