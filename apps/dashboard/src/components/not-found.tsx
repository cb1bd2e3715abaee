import { Link } from 'react-router';
import { useI18n, usePageTitle } from '../i18n/index.js';

export function NotFoundPage() {
  const { t } = useI18n();
  usePageTitle(t('notFound.title'));
  return (
    <section className="panel narrow">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <p>
        <Link to="/" className="button button-primary">
          {t('notFound.home')}
        </Link>
      </p>
    </section>
  );
}
