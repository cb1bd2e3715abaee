import { useI18n } from '../i18n/index.js';
import './skeleton.css';

/** Placeholders the size of what loads, so nothing jumps when the data arrives. */
export function Skeleton({ lines = 1, height }: { lines?: number; height?: 'card' | 'chart' | 'row' }) {
  return (
    <div className="skeleton-group" aria-hidden="true">
      {Array.from({ length: lines }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders
        <div key={index} className={`skeleton skeleton-${height ?? 'row'}`} />
      ))}
    </div>
  );
}

export function PageSkeleton() {
  const { t } = useI18n();
  return (
    <div aria-busy="true">
      <p className="visually-hidden" role="status">
        {t('common.loading')}
      </p>
      <div className="skeleton skeleton-title" aria-hidden="true" />
      <Skeleton lines={4} />
    </div>
  );
}
