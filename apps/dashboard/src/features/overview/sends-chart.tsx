import { useI18n } from '../../i18n/index.js';

interface Day {
  date: string;
  sends: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const TOP = 4;
const BOTTOM = 1;

/** Daily sends as plain SVG bars (no chart library): one bar per UTC day, oldest on the left. */
export function SendsChart({ days }: { days: Day[] }) {
  const { t, plural, number } = useI18n();
  const max = Math.max(1, ...days.map((day) => day.sends));
  const total = days.reduce((sum, day) => sum + day.sends, 0);
  const slot = WIDTH / Math.max(1, days.length);
  const plot = HEIGHT - TOP - BOTTOM;
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const peak = total === 0 ? 0 : max;
  const summary = t('chart.summary', { first, last, total, max: peak });
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <title>{summary}</title>
        <line x1="0" x2={WIDTH} y1={HEIGHT - BOTTOM} y2={HEIGHT - BOTTOM} className="chart-axis" />
        {days.map((day, index) => {
          const height = (day.sends / max) * plot;
          return (
            <rect
              key={day.date}
              x={index * slot + slot * 0.15}
              y={HEIGHT - BOTTOM - height}
              width={slot * 0.7}
              height={Math.max(height, day.sends > 0 ? 1 : 0)}
              className="chart-bar"
            >
              <title>{t('chart.day', { date: day.date, sends: day.sends })}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart-axis-labels muted" aria-hidden="true">
        <span>{first}</span>
        <span>{t('chart.peak', { max: number(peak) })}</span>
        <span>{last}</span>
      </div>
      <figcaption className="muted">{plural('chart.caption.other', total, { days: days.length })}</figcaption>
    </figure>
  );
}
