import { MAX_FREQUENCY_CAP_HOURS, MAX_FREQUENCY_CAP_PUSHES } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../../components/error-panel.js';
import type { Problem } from '../../components/field.js';
import { TimeZoneSelect } from '../../components/time-zones.js';
import { useI18n } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { useUpdateApp } from './use-app-settings.js';

/** The cap as typed: off, or pushes in hours within the API's bounds; what is wrong otherwise. */
export function frequencyCapOf(
  capped: boolean,
  max: string,
  hours: string,
): { frequencyCap: { max: number; hours: number } | null } | { problem: Problem; field: 'cap-max' | 'cap-hours' } {
  if (!capped) return { frequencyCap: null };
  const pushes = Number(max);
  if (!Number.isInteger(pushes) || pushes < 1 || pushes > MAX_FREQUENCY_CAP_PUSHES)
    return { field: 'cap-max', problem: { key: 'settings.capMaxRange', values: { max: MAX_FREQUENCY_CAP_PUSHES } } };
  const within = Number(hours);
  if (!Number.isInteger(within) || within < 1 || within > MAX_FREQUENCY_CAP_HOURS)
    return { field: 'cap-hours', problem: { key: 'settings.capHoursRange', values: { max: MAX_FREQUENCY_CAP_HOURS } } };
  return { frequencyCap: { max: pushes, hours: within } };
}

/** The app's time zone (for subscribers without one, and local-time sends) and its frequency cap. */
export function DeliverySettings() {
  const app = useCurrentApp();
  const { t } = useI18n();
  const [timeZone, setTimeZone] = useState(app.timeZone);
  const [capped, setCapped] = useState(app.frequencyCap !== null);
  const [max, setMax] = useState(String(app.frequencyCap?.max ?? 3));
  const [hours, setHours] = useState(String(app.frequencyCap?.hours ?? 24));
  const [problem, setProblem] = useState<{ field: 'cap-max' | 'cap-hours'; problem: Problem } | null>(null);
  const save = useUpdateApp(app.id);
  const edited = () => {
    setProblem(null);
    if (save.isError || save.isSuccess) save.reset();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const cap = frequencyCapOf(capped, max, hours);
    if ('problem' in cap) {
      setProblem(cap);
      return;
    }
    save.mutate({ timeZone, frequencyCap: cap.frequencyCap });
  };
  const problemOf = (field: 'cap-max' | 'cap-hours') =>
    problem?.field === field ? (
      <p className="error-message" role="alert" id={`${field}-error`}>
        {t(problem.problem.key, problem.problem.values)}
      </p>
    ) : null;
  return (
    <section className="panel" aria-labelledby="delivery-title">
      <h2 id="delivery-title">{t('settings.deliveryTitle')}</h2>
      <form onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="app-time-zone">{t('settings.timeZone')}</label>
          <TimeZoneSelect
            id="app-time-zone"
            value={timeZone}
            onChange={(event) => {
              edited();
              setTimeZone(event.target.value);
            }}
            aria-describedby="app-time-zone-hint"
          />
          <p className="hint" id="app-time-zone-hint">
            {t('settings.timeZoneHint')}
          </p>
        </div>
        <fieldset className="scopes">
          <legend>{t('settings.capTitle')}</legend>
          <label className="scope-option">
            <input
              type="checkbox"
              checked={capped}
              onChange={(event) => {
                edited();
                setCapped(event.target.checked);
              }}
            />
            <span>
              <strong>{t('settings.capOn')}</strong>
              <span className="hint">{t('settings.capHint')}</span>
            </span>
          </label>
          {capped && (
            <div className="cap-row">
              <div className="field">
                <label htmlFor="cap-max">{t('settings.capMax')}</label>
                <input
                  id="cap-max"
                  name="cap-max"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={MAX_FREQUENCY_CAP_PUSHES}
                  step={1}
                  required
                  value={max}
                  onChange={(event) => {
                    edited();
                    setMax(event.target.value);
                  }}
                  aria-invalid={problem?.field === 'cap-max' ? true : undefined}
                  aria-describedby="cap-max-error"
                />
                {problemOf('cap-max')}
              </div>
              <div className="field">
                <label htmlFor="cap-hours">{t('settings.capHours')}</label>
                <input
                  id="cap-hours"
                  name="cap-hours"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={MAX_FREQUENCY_CAP_HOURS}
                  step={1}
                  required
                  value={hours}
                  onChange={(event) => {
                    edited();
                    setHours(event.target.value);
                  }}
                  aria-invalid={problem?.field === 'cap-hours' ? true : undefined}
                  aria-describedby="cap-hours-hint cap-hours-error"
                />
                <p className="hint" id="cap-hours-hint">
                  {t('settings.capHoursHint', { max: MAX_FREQUENCY_CAP_HOURS })}
                </p>
                {problemOf('cap-hours')}
              </div>
            </div>
          )}
        </fieldset>
        <ErrorMessage error={save.error} />
        {save.isSuccess && (
          <p className="success" role="status">
            {save.data.app.frequencyCap
              ? t('settings.deliverySavedCap', {
                  zone: save.data.app.timeZone,
                  max: save.data.app.frequencyCap.max,
                  hours: save.data.app.frequencyCap.hours,
                })
              : t('settings.deliverySaved', { zone: save.data.app.timeZone })}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : t('common.save')}
        </button>
      </form>
    </section>
  );
}
