import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, type RefObject, useLayoutEffect, useRef } from 'react';
import { ErrorPanel } from './error-panel.js';
import { Skeleton } from './skeleton.js';

/**
 * A list's three states before its rows: placeholders the size of what loads, the error with a
 * retry, or what an empty list says; `children` renders the data once there is some.
 */
export function Loaded<T>({
  query,
  lines,
  isEmpty,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  /** Placeholder rows while loading. */
  lines: number;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Skeleton lines={lines} />;
  if (query.isError) return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}

/**
 * Below the stacking breakpoint (base.css) a row is a card and each cell is read with its column's
 * name beside it: every body cell gets `data-label`, its header's text, after each render.
 */
export function useStackedLabels(table: RefObject<HTMLTableElement | null>): void {
  useLayoutEffect(() => {
    const element = table.current;
    if (!element) return;
    const names = [...element.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
    for (const row of element.querySelectorAll<HTMLTableRowElement>('tbody tr')) {
      [...row.cells].forEach((cell, index) => {
        if (cell.colSpan === 1 && names[index]) cell.dataset.label = names[index];
      });
    }
  });
}

/**
 * The dashboard's tables: a header row of column names and an actions column whose name only screen
 * readers hear; on a narrow screen each row stacks into a card of labelled cells.
 */
export function DataTable({
  columns,
  actions,
  className,
  label,
  children,
}: {
  /** Column names; `{ label, numeric: true }` for a right-aligned column of figures. */
  columns: (string | { label: string; numeric: true })[];
  /** The name of a last column of buttons, read out but not shown. */
  actions?: string;
  className?: string;
  label?: string;
  children: ReactNode;
}) {
  const table = useRef<HTMLTableElement>(null);
  useStackedLabels(table);
  return (
    <div className="table-wrap">
      <table ref={table} className={className ? `stacking ${className}` : 'stacking'} aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th scope="col" key={column}>
                  {column}
                </th>
              ) : (
                <th scope="col" key={column.label} className="num">
                  {column.label}
                </th>
              ),
            )}
            {actions === undefined ? null : (
              <th scope="col">
                <span className="visually-hidden">{actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
