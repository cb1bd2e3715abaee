import { useState } from 'react';
import { useI18n } from '../i18n/index.js';

/** Copies `text`; says so for a moment (and to screen readers). */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2_000);
  };
  return (
    <button type="button" className="button button-small" onClick={() => void copy()}>
      <span aria-live="polite">
        {state === 'copied'
          ? t('common.copied')
          : state === 'failed'
            ? t('common.copyFailed')
            : (label ?? t('common.copy'))}
      </span>
    </button>
  );
}
