import type { SelectHTMLAttributes } from 'react';

/**
 * The IANA time zones the browser knows, as the API checks them (with the runtime's `Intl`), `UTC`
 * first: Chromium's list leaves it out, and it is the app's default zone.
 */
export function timeZoneNames(): string[] {
  const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...names.filter((name) => name !== 'UTC')];
}

let cached: string[] | null = null;

/** A select of every zone; a `value` the list lacks (a name the API kept as given) is offered too. */
export function TimeZoneSelect({ value, ...select }: SelectHTMLAttributes<HTMLSelectElement> & { value: string }) {
  cached ??= timeZoneNames();
  const names = value && !cached.includes(value) ? [value, ...cached] : cached;
  return (
    <select value={value} {...select}>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}

/** A `<datalist>` of every zone, for an input's `list` where any zone, or none, may be typed. */
export function TimeZoneList({ id }: { id: string }) {
  cached ??= timeZoneNames();
  return (
    <datalist id={id}>
      {cached.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}
