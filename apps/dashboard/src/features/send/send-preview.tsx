import { useState } from 'react';
import { RemoteImage } from '../../components/remote-image.js';
import { useI18n } from '../../i18n/index.js';
import type { Draft } from './send-draft.js';
import { type RichDraft, RichPreview } from './send-rich-fields.js';

/** The notification as a browser would roughly show it, while it is written. */
export function SendPreview({
  draft,
  rich,
  variant,
  language,
}: {
  draft: Draft;
  rich: RichDraft;
  variant?: string | undefined;
  /** The translation shown, by its language tag. */
  language?: string | undefined;
}) {
  const { t } = useI18n();
  let host = '';
  try {
    host = draft.url ? new URL(draft.url).host : '';
  } catch {
    host = '';
  }
  const icon = draft.icon.startsWith('https://') ? draft.icon : null;
  const [failedIcon, setFailedIcon] = useState<string | null>(null);
  return (
    <figure className="preview" aria-label={t('send.preview')}>
      <figcaption className="muted">
        {variant
          ? t('send.previewVariant', { name: variant })
          : language
            ? t('send.previewLanguage', { language })
            : t('send.previewNote')}
      </figcaption>
      <div className="preview-card">
        {icon ? (
          <RemoteImage src={icon} className="preview-icon" fallback="" onFailed={setFailedIcon} />
        ) : (
          <span className="preview-icon" aria-hidden="true" />
        )}
        <div className="preview-text">
          <strong className="preview-title">{draft.title || t('send.previewTitle')}</strong>
          <span className="preview-body">{draft.body || t('send.previewBody')}</span>
          <span className="preview-host muted">{host || window.location.host}</span>
          <RichPreview draft={rich} fallback={t('send.previewNoImage')} />
          {icon && failedIcon === icon && (
            <span className="hint" data-testid="icon-failed">
              {t('send.previewNoIcon')}
            </span>
          )}
        </div>
      </div>
    </figure>
  );
}
