import { MAX_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { usePlans } from '../../api/plans.js';
import { useMe } from '../../api/session.js';
import { ErrorMessage, ErrorPanel } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useApps, useCreateApp } from './use-apps.js';
import './apps.css';

export function AppsPage() {
  const apps = useApps();
  const [name, setName] = useState('');
  const navigate = useNavigate();
  const { t, date, plural } = useI18n();
  usePageTitle(t('apps.title'));
  const me = useMe();
  const plans = usePlans();
  // At the plan's app limit the form would only end in PLAN_LIMIT_EXCEEDED: point to the plans instead.
  const plan = plans.data?.plans.find((candidate) => candidate.id === me.data?.plan);
  const appLimit = plan?.limits.apps ?? null;
  const atLimit = appLimit !== null && apps.data !== undefined && apps.data.apps.length >= appLimit;

  const create = useCreateApp((app) => navigate(`/apps/${app.id}`));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name);
  };

  return (
    <>
      <h1>{t('apps.heading')}</h1>
      <p className="muted">{t('apps.lead')}</p>
      {apps.isPending ? (
        <Skeleton lines={2} height="card" />
      ) : apps.isError ? (
        <ErrorPanel error={apps.error} onRetry={() => void apps.refetch()} />
      ) : apps.data.apps.length === 0 ? (
        <p className="panel empty">{t('apps.empty')}</p>
      ) : (
        <ul className="card-grid">
          {apps.data.apps.map((app) => (
            <li key={app.id}>
              <Link className="card card-link" to={`/apps/${app.id}`}>
                <span className="card-title">{app.name}</span>
                <span className="card-numbers" data-testid="app-numbers">
                  <span>{plural('apps.subscribers.other', app.stats.activeSubscribers)}</span>
                  <span>{plural('apps.sends.other', app.stats.sendsThisMonth)}</span>
                </span>
                <span className="muted">
                  {t('apps.created', { date: date(app.createdAt) })}
                  {app.role !== 'owner' && (
                    <span className="role-badge" data-testid="app-role">
                      {t(`members.role.${app.role}` as MessageKey)}
                    </span>
                  )}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {atLimit && plan ? (
        <section className="panel" data-testid="app-limit">
          <h2>{t('apps.createHeading')}</h2>
          <p className="plan-limit-note">
            {plural('apps.atLimit.other', appLimit, { plan: plan.name })}{' '}
            <Link to="/pricing">{t('apps.seePlans')}</Link>
          </p>
        </section>
      ) : (
        <section className="panel">
          <h2>{t('apps.createHeading')}</h2>
          <form onSubmit={onSubmit} className="inline-form">
            <Field
              id="app-name"
              label={t('apps.name')}
              required
              maxLength={MAX_NAME_LENGTH}
              placeholder={t('apps.namePlaceholder')}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
            <button type="submit" className="button button-primary" disabled={create.isPending}>
              {create.isPending ? t('apps.creating') : t('apps.create')}
            </button>
          </form>
          <ErrorMessage error={create.error} />
        </section>
      )}
    </>
  );
}
