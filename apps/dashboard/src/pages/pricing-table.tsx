/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: the build prerenders this file under tsx, which does not apply tsconfig's `jsx` to it.)
/**
 * The plans table. Pure markup without the router or data hooks: the build prerenders it into
 * dist/pricing.html (readable without JavaScript), and the live pricing page renders the same.
 */
export interface Plan {
  id: string;
  name: string;
  limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
}

/** The element id of the plans JSON embedded in dist/pricing.html (a data block, never executed). */
export const PRERENDERED_PLANS_ID = 'prerendered-plans';

const numbers = new Intl.NumberFormat('en');
const limit = (value: number | null, unit: string) =>
  value === null ? `Unlimited ${unit}` : `${numbers.format(value)} ${unit}`;

export function PricingTable({ plans, currentPlan }: { plans: Plan[]; currentPlan: string | null }) {
  return (
    <>
      <h1>Plans</h1>
      <p className="muted">Every plan has the whole API, the web SDK and the dashboard. Limits are per account.</p>
      <ul className="plan-grid" aria-label="Plans">
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
                {current && <span className="badge">Your plan</span>}
              </h2>
              <ul className="plan-limits">
                <li>{limit(plan.limits.apps, plan.limits.apps === 1 ? 'app' : 'apps')}</li>
                <li>{limit(plan.limits.subscribers, 'active subscribers')}</li>
                <li>{limit(plan.limits.sendsPerMonth, 'sends a month')}</li>
              </ul>
              <p className="plan-id muted">
                Plan id <code>{plan.id}</code>
              </p>
            </li>
          );
        })}
      </ul>
      <section className="panel">
        <h2>Changing plans</h2>
        <p>
          There is no billing yet. The operator of this service moves an account to another plan with{' '}
          <code>pnpm admin set-plan &lt;email&gt; &lt;plan&gt;</code>, for example{' '}
          <code>pnpm admin set-plan owner@example.com pro</code>.
        </p>
        <p className="muted">
          A send is one message to one subscription. Months are calendar months in UTC. A send that would go over the
          month's limit is refused whole, before anything is queued.
        </p>
      </section>
    </>
  );
}
