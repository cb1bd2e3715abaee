import { useI18n } from '../../i18n/index.js';
import type { Notification } from './use-notifications.js';

type Variant = NonNullable<Notification['variants']>[number];

/** A variant's click rate as the winner is chosen by it: clicked ÷ sent, "—" while nothing was sent. */
export const variantClickRate = ({ sent, clicked }: Variant, language: string) =>
  sent === 0
    ? '—'
    : new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(clicked / sent);

/**
 * An A/B test's variants side by side (stacked on a narrow screen): what each said and how it did,
 * the winner marked, and while a sample runs, when the winner will be chosen.
 */
export function VariantComparison({ notification }: { notification: Notification }) {
  const { t, number, dateTime, language } = useI18n();
  const variants = notification.variants ?? [];
  if (variants.length === 0) return null;
  const choosing = notification.winner === null && notification.winnerAt !== undefined;
  return (
    <section className="panel" aria-labelledby="variants-title" data-testid="variants">
      <h2 id="variants-title">{t('notification.variantsTitle')}</h2>
      {choosing && notification.winnerAt && (
        <p className="hint variant-choosing" data-testid="choosing-winner">
          {t('notification.choosingWinner', { time: dateTime(notification.winnerAt) })}
        </p>
      )}
      <div className="variant-grid">
        {variants.map((variant) => {
          const winner = notification.winner === variant.name;
          return (
            <article
              key={variant.name}
              className={winner ? 'variant-card variant-winner' : 'variant-card'}
              aria-labelledby={`variant-${variant.name}`}
              data-variant={variant.name}
            >
              <h3 id={`variant-${variant.name}`} className="variant-name">
                {t('notification.variantName', { name: variant.name })}
                {winner && <span className="badge badge-winner">{t('notification.winner')}</span>}
              </h3>
              <p className="variant-text">
                <strong>{variant.title}</strong>
                <span>{variant.body}</span>
                {variant.url && <span className="muted break-all">{variant.url}</span>}
              </p>
              <dl className="variant-figures">
                <div>
                  <dt>{t('notification.variantSent')}</dt>
                  <dd data-figure="sent">{number(variant.sent)}</dd>
                </div>
                <div>
                  <dt>{t('notification.variantShown')}</dt>
                  <dd data-figure="shown">{number(variant.shown)}</dd>
                </div>
                <div>
                  <dt>{t('notification.variantClicked')}</dt>
                  <dd data-figure="clicked">{number(variant.clicked)}</dd>
                </div>
                <div>
                  <dt>{t('notification.variantCtr')}</dt>
                  <dd data-figure="ctr">{variantClickRate(variant, language)}</dd>
                </div>
                <div>
                  <dt>{t('notification.variantConversions')}</dt>
                  <dd data-figure="converted">{number(variant.converted)}</dd>
                </div>
              </dl>
            </article>
          );
        })}
      </div>
      <p className="hint">{t('notification.variantCtrNote')}</p>
    </section>
  );
}
