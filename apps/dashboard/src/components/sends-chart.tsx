interface Day {
  date: string;
  sends: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const TOP = 16;
const BOTTOM = 24;
const numbers = new Intl.NumberFormat('en');

/** Daily sends as plain SVG bars (no chart library): one bar per UTC day, oldest on the left. */
export function SendsChart({ days }: { days: Day[] }) {
  const max = Math.max(1, ...days.map((day) => day.sends));
  const total = days.reduce((sum, day) => sum + day.sends, 0);
  const slot = WIDTH / Math.max(1, days.length);
  const plot = HEIGHT - TOP - BOTTOM;
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const summary = `Daily sends from ${first} to ${last}: ${numbers.format(total)} in total, at most ${numbers.format(total === 0 ? 0 : max)} a day.`;
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
              <title>{`${day.date}: ${numbers.format(day.sends)} sends`}</title>
            </rect>
          );
        })}
        <text x="0" y={HEIGHT - 6} className="chart-label">
          {first}
        </text>
        <text x={WIDTH} y={HEIGHT - 6} className="chart-label" textAnchor="end">
          {last}
        </text>
        <text x="0" y="11" className="chart-label">
          {numbers.format(total === 0 ? 0 : max)} / day
        </text>
      </svg>
      <figcaption className="muted">
        {numbers.format(total)} sends in the last {days.length} days (UTC).
      </figcaption>
    </figure>
  );
}
