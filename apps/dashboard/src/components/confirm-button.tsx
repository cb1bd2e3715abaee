import { type ReactNode, useRef, useState } from 'react';
import { useI18n } from '../i18n/index.js';
import { ErrorMessage } from './error-panel.js';
import './dialog.css';

interface ConfirmButtonProps {
  /** The button that opens the question. */
  label: string;
  /** Accessible name of the button when `label` alone is ambiguous in a list. */
  ariaLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
}

/** A destructive action that asks first, in a modal <dialog> (focus moves into it; Escape cancels). */
export function ConfirmButton({ label, ariaLabel, title, children, confirmLabel, onConfirm }: ConfirmButtonProps) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => dialog.current?.close();
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="button button-small button-danger-outline"
        aria-label={ariaLabel}
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      {/* showModal() moves focus to the first button (Cancel): the safe choice is the default. */}
      <dialog ref={dialog} className="dialog" aria-label={title}>
        <h2 className="dialog-title">{title}</h2>
        <div className="dialog-body">{children}</div>
        <ErrorMessage error={error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy}>
            {busy ? t('common.working') : confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
