import { MAX_ACTION_TITLE_LENGTH, MAX_ACTIONS, MAX_TAG_LENGTH } from '@webpush/plans';
import { useState } from 'react';
import { Field } from '../../components/field.js';
import { RemoteImage } from '../../components/remote-image.js';
import { useRichText } from '../../i18n/rich-strings.js';

/** The rich fields of the send form: an image, two buttons, tag and behaviour. */
export interface RichDraft {
  image: string;
  buttons: { title: string; url: string }[];
  tag: string;
  requireInteraction: boolean;
  silent: boolean;
}

export const EMPTY_RICH: RichDraft = {
  image: '',
  buttons: Array.from({ length: MAX_ACTIONS }, () => ({ title: '', url: '' })),
  tag: '',
  requireInteraction: false,
  silent: false,
};

/** The request's rich fields, each only when filled in; a button's `action` is its position. */
export function richPayloadOf(draft: RichDraft) {
  const payload: {
    image?: string;
    actions?: { action: string; title: string; url?: string }[];
    tag?: string;
    requireInteraction?: boolean;
    silent?: boolean;
  } = {};
  if (draft.image) payload.image = draft.image;
  const actions = draft.buttons
    .map((button, i) => ({ action: `button-${i + 1}`, title: button.title.trim(), url: button.url }))
    .filter((button) => button.title)
    .map(({ url, ...button }) => (url ? { ...button, url } : button));
  if (actions.length > 0) payload.actions = actions;
  if (draft.tag.trim()) payload.tag = draft.tag.trim();
  if (draft.requireInteraction) payload.requireInteraction = true;
  if (draft.silent) payload.silent = true;
  return payload;
}

export function RichFields({
  draft,
  onChange,
  errorOf,
}: {
  draft: RichDraft;
  onChange: (draft: RichDraft) => void;
  /** The error under a field, by its id (a URL the API refuses). */
  errorOf: (field: string) => unknown;
}) {
  const text = useRichText();
  // Closed, a refused image or button link would hide its error: the section opens with one.
  const hasError = ['image', ...draft.buttons.map((_, i) => `button-${i + 1}-url`)].some((field) => errorOf(field));
  const [open, setOpen] = useState(false);
  const setButton = (index: number, field: 'title' | 'url', value: string) =>
    onChange({
      ...draft,
      buttons: draft.buttons.map((button, i) => (i === index ? { ...button, [field]: value } : button)),
    });
  return (
    <details className="rich-fields" open={open || hasError} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{text.richLegend}</summary>
      <Field
        id="image"
        label={text.image}
        type="url"
        placeholder="https://example.com/banner.png"
        value={draft.image}
        onChange={(event) => onChange({ ...draft, image: event.target.value })}
        hint={text.imageHint}
        error={errorOf('image')}
      />
      {draft.buttons.map((button, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed slots, one per button the API allows
        <div key={i} className="button-fields">
          <Field
            id={`button-${i + 1}-title`}
            label={text.buttonLabel(i + 1)}
            maxLength={MAX_ACTION_TITLE_LENGTH}
            value={button.title}
            onChange={(event) => setButton(i, 'title', event.target.value)}
          />
          <Field
            id={`button-${i + 1}-url`}
            label={text.buttonLink(i + 1)}
            type="url"
            placeholder="https://example.com/offer"
            value={button.url}
            onChange={(event) => setButton(i, 'url', event.target.value)}
            hint={text.buttonLinkHint}
            error={errorOf(`button-${i + 1}-url`)}
          />
        </div>
      ))}
      <Field
        id="tag"
        label={text.tag}
        maxLength={MAX_TAG_LENGTH}
        value={draft.tag}
        onChange={(event) => onChange({ ...draft, tag: event.target.value })}
        hint={text.tagHint}
      />
      <label className="scope-option">
        <input
          type="checkbox"
          checked={draft.requireInteraction}
          onChange={(event) => onChange({ ...draft, requireInteraction: event.target.checked })}
        />
        <span>
          <strong>{text.requireInteraction}</strong>
        </span>
      </label>
      <label className="scope-option">
        <input
          type="checkbox"
          checked={draft.silent}
          onChange={(event) => onChange({ ...draft, silent: event.target.checked })}
        />
        <span>
          <strong>{text.silent}</strong>
        </span>
      </label>
    </details>
  );
}

/** The image and buttons in the preview card. */
export function RichPreview({ draft, fallback }: { draft: RichDraft; fallback: string }) {
  const image = draft.image.startsWith('https://') ? draft.image : null;
  const titles = draft.buttons.map((button) => button.title.trim()).filter(Boolean);
  return (
    <>
      {image && <RemoteImage src={image} className="preview-image" fallback={fallback} />}
      {titles.length > 0 && (
        <div className="preview-buttons">
          {titles.map((title) => (
            <span key={title} className="preview-button">
              {title}
            </span>
          ))}
        </div>
      )}
    </>
  );
}
