import { useState } from 'react';
import { useI18n } from '../i18n/index.js';

/** Keyset pages: the cursors of the pages before this one, so "Newer" goes back without offsets. */
export function useCursorPages() {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  const cursor = stack.at(-1) ?? null;
  return {
    cursor,
    pageNumber: stack.length,
    older: (next: string) => setStack((current) => [...current, next]),
    newer: () => setStack((current) => (current.length > 1 ? current.slice(0, -1) : current)),
    reset: () => setStack([null]),
  };
}

export function Pager({
  pageNumber,
  nextCursor,
  onNewer,
  onOlder,
  label,
}: {
  pageNumber: number;
  nextCursor: string | null | undefined;
  onNewer: () => void;
  onOlder: (cursor: string) => void;
  label: string;
}) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label={t('common.pagesOf', { label })}>
      <button type="button" className="button button-small" onClick={onNewer} disabled={pageNumber <= 1}>
        {t('common.newer')}
      </button>
      <span className="muted">{t('common.page', { number: pageNumber })}</span>
      <button
        type="button"
        className="button button-small"
        onClick={() => nextCursor && onOlder(nextCursor)}
        disabled={!nextCursor}
      >
        {t('common.older')}
      </button>
    </nav>
  );
}
