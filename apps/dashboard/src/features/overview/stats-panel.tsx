import { lazy, Suspense, useMemo, useState } from 'react';
import { DataTable } from '../../components/data-table.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import type { ChartSeries } from './stats-chart.js';
import { type DayStats, PERIODS, type Period, useStats } from './use-stats.js';

// uPlot loads only when there is something to draw: the first page stays within its size budget.
const StatsChart = lazy(() => import('./stats-chart.js'));

type Count = Exclude<keyof DayStats, 'date'>;

/** The two charts: what each draws, in which colour (4.5:1 or more on white, told apart by the legend too). */
const CHARTS: { title: MessageKey; lines: { count: Count; label: MessageKey; color: string }[] }[] = [
  {
    title: 'stats.delivery',
    lines: [
      { count: 'sent', label: 'stats.sent', color: '#2f4fd8' },
      { count: 'shown', label: 'stats.shown', color: '#0e7490' },
      { count: 'clicked', label: 'stats.clicked', color: '#b45309' },
      { count: 'converted', label: 'stats.converted', color: '#7e22ce' },
    ],
  },
  {
    title: 'stats.subscribers',
    lines: [
      { count: 'subscribed', label: 'stats.subscribed', color: '#146c43' },
      { count: 'unsubscribed', label: 'stats.unsubscribed', color: '#b42318' },
    ],
  },
];

const COLUMNS = CHARTS.flatMap((chart) => chart.lines);

const total = (days: DayStats[], count: Count) => days.reduce((sum, day) => sum + day[count], 0);

/** The app's history per UTC day over 7, 30 or 90 days: two charts, their totals, and every number in a table. */
export function StatsPanel({ appId }: { appId: string }) {
  const [period, setPeriod] = useState<Period>(30);
  const stats = useStats(appId, period);
  const { t, plural, number, date, language } = useI18n();
  const days = stats.data?.days;
  const dates = useMemo(() => days?.map((day) => day.date) ?? [], [days]);
  const series = useMemo(
    () =>
      CHARTS.map((chart) =>
        chart.lines.map(
          (line): ChartSeries => ({
            label: t(line.label),
            color: line.color,
            values: days?.map((day) => day[line.count]) ?? [],
          }),
        ),
      ),
    [days, t],
  );
  const shown = days?.length ?? period;
  const quiet = days?.every((day) => COLUMNS.every((column) => day[column.count] === 0)) ?? false;
  return (
    <section className="panel" aria-labelledby="stats-title">
      <div className="panel-heading">
        <h2 id="stats-title">{t('stats.title')}</h2>
        <fieldset className="period-switch">
          <legend className="visually-hidden">{t('stats.period')}</legend>
          {PERIODS.map((option) => (
            <button
              key={option}
              type="button"
              className="period-option"
              aria-pressed={option === period}
              onClick={() => setPeriod(option)}
            >
              {t('stats.days', { days: option })}
            </button>
          ))}
        </fieldset>
      </div>
      {stats.isPending ? (
        <Skeleton height="chart" />
      ) : stats.isError ? (
        <ErrorPanel error={stats.error} onRetry={() => void stats.refetch()} title={t('stats.failed')} />
      ) : quiet ? (
        <p className="empty" data-testid="chart-empty">
          {t('stats.empty', { days: shown })}
        </p>
      ) : (
        <div aria-busy={stats.isPlaceholderData ? true : undefined} data-days={shown}>
          <div className="chart-grid">
            {CHARTS.map((chart, index) => (
              <figure className="chart" key={chart.title}>
                <h3 className="chart-title">{t(chart.title)}</h3>
                <ul className="chart-legend">
                  {chart.lines.map((line) => (
                    <li key={line.count} data-count={line.count}>
                      <span className="chart-swatch" style={{ background: line.color }} aria-hidden="true" />
                      {t(line.label)} <strong>{number(total(stats.data.days, line.count))}</strong>
                    </li>
                  ))}
                </ul>
                <Suspense fallback={<Skeleton height="chart" />}>
                  <StatsChart dates={dates} series={series[index] ?? []} language={language} />
                </Suspense>
                <figcaption className="muted">
                  {index === 0
                    ? plural('chart.caption.other', total(stats.data.days, 'sent'), { days: shown })
                    : t('stats.subscribersCaption', {
                        days: shown,
                        subscribed: total(stats.data.days, 'subscribed'),
                        unsubscribed: total(stats.data.days, 'unsubscribed'),
                      })}
                </figcaption>
              </figure>
            ))}
          </div>
          <details className="stats-days">
            <summary>{t('stats.table')}</summary>
            <DataTable
              label={t('stats.table')}
              columns={[
                t('stats.date'),
                ...COLUMNS.map((column) => ({ label: t(column.label), numeric: true as const })),
              ]}
            >
              {[...stats.data.days].reverse().map((day) => (
                <tr key={day.date} data-date={day.date}>
                  <td className="nowrap">{date(`${day.date}T00:00:00Z`, { dateStyle: 'medium', timeZone: 'UTC' })}</td>
                  {COLUMNS.map((column) => (
                    <td key={column.count} className="num">
                      {number(day[column.count])}
                    </td>
                  ))}
                </tr>
              ))}
            </DataTable>
          </details>
        </div>
      )}
    </section>
  );
}
