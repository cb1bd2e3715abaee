import { useI18n } from '../../i18n/index.js';
import type { Draft } from './send-draft.js';
import { type RichDraft, RichPreview } from './send-rich-fields.js';

/** The notification as a browser would roughly show it, while it is written. */
export function SendPreview({ draft, rich }: { draft: Draft; rich: RichDraft }) {
  const { t } = useI18n();
  let host = '';
  try {
    host = draft.url ? new URL(draft.url).host : '';
  } catch {
    host = '';
  }
  const icon = draft.icon.startsWith('https://') ? draft.icon : null;
  return (
    <figure className="preview" aria-label={t('send.preview')}>
      <figcaption className="muted">{t('send.previewNote')}</figcaption>
      <div className="preview-card">
        {icon ? (
          <img src={icon} alt="" className="preview-icon" />
        ) : (
          <span className="preview-icon" aria-hidden="true" />
        )}
        <div className="preview-text">
          <strong className="preview-title">{draft.title || t('send.previewTitle')}</strong>
          <span className="preview-body">{draft.body || t('send.previewBody')}</span>
          <span className="preview-host muted">{host || window.location.host}</span>
          <RichPreview draft={rich} />
        </div>
      </div>
    </figure>
  );
}
