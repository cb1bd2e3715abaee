import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.js';
import { ErrorMessage, ErrorPanel } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { Skeleton } from '../components/skeleton.js';

export const appsQuery = {
  queryKey: ['apps'],
  queryFn: () => call(api.GET('/api/v1/apps')),
};

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });

export function AppsPage() {
  const apps = useQuery(appsQuery);
  const [name, setName] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = 'Apps · Web Push';
  }, []);

  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/apps', { body: { name } })),
    onSuccess: async ({ app }) => {
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
      await navigate(`/apps/${app.id}`);
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      <h1>Your apps</h1>
      <p className="muted">An app is one site or product: it has its own VAPID key pair, API keys and subscribers.</p>
      {apps.isPending ? (
        <Skeleton lines={2} height="card" />
      ) : apps.isError ? (
        <ErrorPanel error={apps.error} onRetry={() => void apps.refetch()} />
      ) : apps.data.apps.length === 0 ? (
        <p className="panel empty">No apps yet. Create your first one below.</p>
      ) : (
        <ul className="card-grid">
          {apps.data.apps.map((app) => (
            <li key={app.id}>
              <Link className="card card-link" to={`/apps/${app.id}`}>
                <span className="card-title">{app.name}</span>
                <span className="muted">Created {dateFormat.format(new Date(app.createdAt))}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <section className="panel">
        <h2>Create an app</h2>
        <form onSubmit={onSubmit} className="inline-form">
          <Field
            id="app-name"
            label="Name"
            required
            maxLength={200}
            placeholder="My blog"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create app'}
          </button>
        </form>
        <ErrorMessage error={create.error} />
      </section>
    </>
  );
}
