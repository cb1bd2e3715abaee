/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: the build prerenders this file under tsx, which does not apply tsconfig's `jsx` to it.)
/**
 * The plans table. Pure markup without the router or data hooks: the build prerenders it into
 * dist/pricing.html and dist/pricing.ja.html (readable without JavaScript), and the live pricing
 * page renders the same.
 */
import { useI18n } from '../i18n/index.js';

export interface Plan {
  id: string;
  name: string;
  limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
}

/** The element id of the plans JSON embedded in dist/pricing.html (a data block, never executed). */
export const PRERENDERED_PLANS_ID = 'prerendered-plans';

export function PricingTable({ plans, currentPlan }: { plans: Plan[]; currentPlan: string | null }) {
  const { t, plural, rich } = useI18n();
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
            </li>
          );
        })}
      </ul>
      <section className="panel">
        <h2>{t('pricing.changingHeading')}</h2>
        <p>
          {rich('pricing.changingBody', {
            command: <code>pnpm admin set-plan &lt;email&gt; &lt;plan&gt;</code>,
            example: <code>pnpm admin set-plan owner@example.com pro</code>,
          })}
        </p>
        <p className="muted">{t('pricing.sendsNote')}</p>
      </section>
    </>
  );
}
