import { type FormEvent, useState } from 'react';
import { useMe } from '../../api/session.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { NotFoundPage } from '../../components/not-found.js';
import { Pager, useCursorPages } from '../../components/pager.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import {
  PLANS,
  type PlanId,
  useChangePlan,
  useGrantPlanRequest,
  usePlanRequests,
  useSetSuspension,
  useTenants,
} from './use-operator.js';
import './operator.css';

type Tenant = {
  id: string;
  email: string;
  plan: string;
  role: 'customer' | 'operator';
  suspended: boolean;
  apps: number;
  subscribers: number;
  sendsThisMonth: number;
};

function PlanRequests() {
  const { t, dateTime } = useI18n();
  const requests = usePlanRequests();
  const grant = useGrantPlanRequest();
  return (
    <section className="panel" aria-labelledby="plan-requests-title">
      <h2 id="plan-requests-title">{t('operator.requests')}</h2>
      <p className="muted">{t('operator.requestsLead')}</p>
      <ErrorMessage error={grant.error} />
      <Loaded
        query={requests}
        lines={2}
        isEmpty={(data) => data.planRequests.length === 0}
        empty={<p className="empty">{t('operator.requestsEmpty')}</p>}
      >
        {(data) => (
          <DataTable
            className="accounts-table"
            columns={[
              t('operator.colAccount'),
              t('operator.colAsked'),
              t('operator.colMessage'),
              t('operator.colWhen'),
            ]}
            actions={t('operator.colActions')}
          >
            {data.planRequests.map((request) => (
              <tr key={request.id}>
                <td className="account-email">{request.email}</td>
                <td className="nowrap">
                  <code>{request.currentPlan}</code> → <code>{request.plan}</code>
                </td>
                <td className="prose">{request.message ?? <span className="muted">—</span>}</td>
                <td>{dateTime(request.createdAt)}</td>
                <td className="actions">
                  <button
                    type="button"
                    className="button button-small button-primary"
                    aria-label={t('operator.grantLabel', { email: request.email, plan: request.plan })}
                    disabled={grant.isPending}
                    onClick={() => grant.mutate(request.id)}
                  >
                    {t('operator.grant')}
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loaded>
    </section>
  );
}

function PlanSelect({ tenant }: { tenant: Tenant }) {
  const { t } = useI18n();
  const change = useChangePlan(tenant.id);
  return (
    <>
      <select
        className="select-small"
        aria-label={t('operator.planOf', { email: tenant.email })}
        value={tenant.plan}
        disabled={change.isPending}
        onChange={(event) => change.mutate(event.target.value as PlanId)}
      >
        {PLANS.map((plan) => (
          <option key={plan} value={plan}>
            {plan}
          </option>
        ))}
      </select>
      <ErrorMessage error={change.error} />
    </>
  );
}

function Suspension({ tenant, self }: { tenant: Tenant; self: boolean }) {
  const { t, rich } = useI18n();
  const setSuspension = useSetSuspension(tenant.id);
  if (self) return <span className="muted">{t('operator.you')}</span>;
  if (tenant.suspended) {
    return (
      <ConfirmButton
        label={t('operator.resume')}
        ariaLabel={t('operator.resumeLabel', { email: tenant.email })}
        title={t('operator.resumeTitle')}
        confirmLabel={t('operator.resumeConfirm')}
        onConfirm={() => setSuspension(false)}
      >
        <p>{rich('operator.resumeBody', { email: <strong className="break-all">{tenant.email}</strong> })}</p>
      </ConfirmButton>
    );
  }
  return (
    <ConfirmButton
      label={t('operator.suspend')}
      ariaLabel={t('operator.suspendLabel', { email: tenant.email })}
      title={t('operator.suspendTitle')}
      confirmLabel={t('operator.suspendConfirm')}
      onConfirm={() => setSuspension(true)}
    >
      <p>
        {rich('operator.suspendBody', {
          email: <strong className="break-all">{tenant.email}</strong>,
          key: <code>INVALID_API_KEY</code>,
          session: <code>INVALID_SESSION</code>,
        })}
      </p>
    </ConfirmButton>
  );
}

function Tenants({ selfId }: { selfId: string }) {
  const { t, number } = useI18n();
  const pages = useCursorPages();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const tenants = useTenants(search, pages.cursor);
  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    setSearch(draft.trim());
    pages.reset();
  };
  return (
    <section className="panel" aria-labelledby="tenants-title">
      <h2 id="tenants-title">{t('operator.accounts')}</h2>
      <form className="inline-form" onSubmit={onSearch}>
        <Field
          id="tenant-search"
          type="search"
          label={t('operator.search')}
          value={draft}
          placeholder={t('operator.searchPlaceholder')}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button">
          {t('operator.searchButton')}
        </button>
      </form>
      <Loaded
        query={tenants}
        lines={4}
        isEmpty={(data) => data.tenants.length === 0}
        empty={<p className="empty">{t('operator.accountsEmpty')}</p>}
      >
        {(data) => (
          <>
            <DataTable
              className="accounts-table"
              columns={[
                t('operator.colEmail'),
                t('operator.colPlan'),
                { label: t('operator.colApps'), numeric: true },
                { label: t('operator.colSubscribers'), numeric: true },
                { label: t('operator.colSends'), numeric: true },
                t('operator.colStatus'),
              ]}
              actions={t('operator.colActions')}
            >
              {data.tenants.map((tenant) => (
                <tr key={tenant.id} data-testid="tenant-row">
                  <td className="account-email">
                    {tenant.email}
                    {tenant.role === 'operator' && <span className="badge">{t('operator.roleOperator')}</span>}
                  </td>
                  <td>
                    <PlanSelect tenant={tenant} />
                  </td>
                  <td className="num">{number(tenant.apps)}</td>
                  <td className="num">{number(tenant.subscribers)}</td>
                  <td className="num">{number(tenant.sendsThisMonth)}</td>
                  <td>
                    {tenant.suspended ? (
                      <span className="badge badge-danger">{t('operator.suspended')}</span>
                    ) : (
                      t('operator.active')
                    )}
                  </td>
                  <td className="actions">
                    <Suspension tenant={tenant} self={tenant.id === selfId} />
                  </td>
                </tr>
              ))}
            </DataTable>
            <Pager
              pageNumber={pages.pageNumber}
              nextCursor={data.nextCursor}
              onNewer={pages.newer}
              onOlder={pages.older}
              label={t('operator.accounts')}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The operator console: plan requests to grant, and every account. Anybody else sees "not found". */
export function OperatorPage() {
  const { t } = useI18n();
  const me = useMe();
  usePageTitle(t('operator.title'));
  const user = me.data;
  if (!user) return null;
  if (user.role !== 'operator') return <NotFoundPage />;
  return (
    <>
      <h1>{t('operator.title')}</h1>
      <p className="muted">{t('operator.lead')}</p>
      <PlanRequests />
      <Tenants selfId={user.id} />
    </>
  );
}
