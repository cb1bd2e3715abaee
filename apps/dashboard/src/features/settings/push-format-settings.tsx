import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useRichText } from '../../i18n/rich-strings.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { useUpdateApp } from './use-app-settings.js';

type PushFormat = 'legacy' | 'declarative';

/** The app's push format and default page: declarative pushes need a page to open on a click. */
export function PushFormatSettings() {
  const text = useRichText();
  const app = useCurrentApp();
  const [format, setFormat] = useState<PushFormat>(app.pushFormat);
  const [defaultUrl, setDefaultUrl] = useState(app.defaultUrl ?? '');
  const save = useUpdateApp(app.id);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ pushFormat: format, defaultUrl: defaultUrl.trim() || null });
  };
  return (
    <section className="panel" aria-labelledby="push-format-title">
      <h2 id="push-format-title">{text.pushFormatTitle}</h2>
      <p className="muted">{text.pushFormatHelp}</p>
      <form onSubmit={onSubmit}>
        <fieldset className="scopes">
          <legend className="visually-hidden">{text.pushFormatTitle}</legend>
          {(['legacy', 'declarative'] as const).map((value) => (
            <label key={value} className="scope-option">
              <input
                type="radio"
                name="push-format"
                value={value}
                checked={format === value}
                onChange={() => setFormat(value)}
              />
              <span>
                <strong>{value === 'legacy' ? text.pushFormatLegacy : text.pushFormatDeclarative}</strong>
              </span>
            </label>
          ))}
        </fieldset>
        <Field
          id="default-url"
          label={text.defaultUrl}
          type="url"
          placeholder="https://example.com/"
          required={format === 'declarative'}
          value={defaultUrl}
          onChange={(event) => setDefaultUrl(event.target.value)}
          hint={text.defaultUrlHint}
        />
        <ErrorMessage error={save.error} />
        {save.isSuccess && (
          <p className="success" role="status">
            {text.saved}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? text.saving : text.save}
        </button>
      </form>
    </section>
  );
}
