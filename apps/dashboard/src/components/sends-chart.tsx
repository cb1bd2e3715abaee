interface Day {
  date: string;
  sends: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const TOP = 4;
const BOTTOM = 1;
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
      </svg>
      <div className="chart-axis-labels muted" aria-hidden="true">
        <span>{first}</span>
        <span>peak {numbers.format(total === 0 ? 0 : max)} / day</span>
        <span>{last}</span>
      </div>
      <figcaption className="muted">
        {numbers.format(total)} {total === 1 ? 'send' : 'sends'} in the last {days.length} days (UTC).
      </figcaption>
    </figure>
  );
}
