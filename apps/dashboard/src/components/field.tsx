import type { InputHTMLAttributes, ReactNode } from 'react';
import type { MessageKey } from '../i18n/index.js';
import { ErrorMessage } from './error-panel.js';

/** What the browser finds wrong in a field before asking the API: a message key and its values. */
export interface Problem {
  key: MessageKey;
  values?: Record<string, string | number>;
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: string;
  hint?: ReactNode;
  /** An API error that concerns this field: shown under it and tied to it for screen readers. */
  error?: unknown;
}

export function Field({ id, label, hint, error, ...input }: FieldProps) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <ErrorMessage error={error} id={`${id}-error`} />
    </div>
  );
}
