import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/*
 * One uPlot line chart of daily counts. Loaded on its own (React.lazy in stats-panel.tsx), so uPlot
 * is not part of the first page. The canvas is a picture only: the panel says the same in words and
 * in a table.
 */

export interface ChartSeries {
  label: string;
  color: string;
  values: number[];
}

const HEIGHT = 200;

export default function StatsChart({
  dates,
  series,
  language,
}: {
  /** UTC days, `YYYY-MM-DD`, oldest first. */
  dates: string[];
  series: ChartSeries[];
  language: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const day = new Intl.DateTimeFormat(language, { month: 'numeric', day: 'numeric', timeZone: 'UTC' });
    const count = new Intl.NumberFormat(language);
    const axis = { stroke: '#5a6275', grid: { stroke: '#dfe3ec', width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        // Days are UTC days: the axis labels them so, whatever the browser's time zone.
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, max)] } },
        axes: [
          { ...axis, values: (_u, splits) => splits.map((seconds) => day.format(new Date(seconds * 1000))) },
          {
            ...axis,
            size: 48,
            values: (_u, splits) => splits.map((value) => (Number.isInteger(value) ? count.format(value) : '')),
          },
        ],
        series: [
          {},
          ...series.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            points: { show: dates.length <= 31, size: 5, fill: line.color },
          })),
        ],
      },
      [dates.map((date) => Date.parse(`${date}T00:00:00Z`) / 1000), ...series.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [dates, series, language]);
  return <div ref={box} className="stats-canvas" aria-hidden="true" />;
}
