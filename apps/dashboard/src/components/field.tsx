import type { InputHTMLAttributes, ReactNode } from 'react';
import { ErrorMessage } from './error-panel.js';

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
