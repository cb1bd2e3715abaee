import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { usePlans } from '../../api/plans.js';
import { useMe } from '../../api/session.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { RequestPlanButton, useOpenPlanRequest } from '../../components/plan-request.js';
import { Skeleton } from '../../components/skeleton.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { type Plan, PRERENDERED_PLANS_ID, PricingTable } from './pricing-table.js';
import './pricing.css';

/** The plans prerendered into pricing.html, so the live page starts from what is already on screen. */
function prerenderedPlans(): { plans: Plan[] } | undefined {
  const text = document.getElementById(PRERENDERED_PLANS_ID)?.textContent;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as { plans: Plan[] };
  } catch {
    return undefined;
  }
}

export function PricingPage() {
  const { t, dateTime } = useI18n();
  const me = useMe();
  const plans = usePlans(prerenderedPlans);
  const prices = useQuery({ queryKey: ['plan-prices'], queryFn: () => call(api.GET('/api/v1/plans/prices')) });
  usePageTitle(t('pricing.title'));
  const signedIn = Boolean(me.data);
  const open = useOpenPlanRequest(signedIn);
  const list = plans.data?.plans ?? [];
  const rank = (id: string | undefined) => list.findIndex((plan) => plan.id === id);
  const action = (plan: Plan) => {
    if (!signedIn) return undefined;
    if (open?.plan === plan.id) return <span className="badge badge-muted">{t('pricing.requestedBadge')}</span>;
    if (plan.id !== 'free' && plan.id !== 'pro' && plan.id !== 'enterprise') return null;
    // The list is smallest first: a plan below the current one is never offered as a request.
    if (rank(plan.id) < rank(me.data?.plan)) return null;
    return <RequestPlanButton plan={plan.id} planName={plan.name} />;
  };
  const planName = (id: string) => list.find((plan) => plan.id === id)?.name ?? id;
  if (plans.data)
    return (
      <>
        {open && open.plan !== me.data?.plan && (
          <p className="success" role="status">
            {t('pricing.requested', { plan: planName(open.plan), date: dateTime(open.createdAt) })}
          </p>
        )}
        <PricingTable
          plans={plans.data.plans}
          currentPlan={me.data?.plan ?? null}
          action={me.isSuccess && signedIn ? action : undefined}
          prices={prices.data?.prices}
        />
      </>
    );
  if (plans.isError) return <ErrorPanel error={plans.error} onRetry={() => void plans.refetch()} />;
  return (
    <>
      <h1>{t('pricing.heading')}</h1>
      <Skeleton lines={3} height="card" />
    </>
  );
}
