import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';

/**
 * How an A/B test's targets are planned (docs/engagement.md):
 *
 * - `none`: no variants;
 * - `split`: variants without a sample: each page's targets get the letters in a random order,
 *   round-robin from where the previous page stopped, so every target has the same chance of each
 *   letter and the groups stay within one of each other;
 * - `sample`: the first plan of a send with a sample: the `sample_size` targets with the smallest
 *   (hashtextextended(id, seed), id), split as above, planned at once;
 * - `waiting`: the sample is planned, the winner not chosen yet: nothing to plan;
 * - `winner`: every other target, with the winner's letter.
 */
export type VariantPhase = 'none' | 'split' | 'sample' | 'waiting' | 'winner';

/** The columns of a notification the planner reads for its A/B test. */
export interface VariantPlanRow {
  alternatives: number;
  sample: number | null;
  winner_after_minutes: number | null;
  sample_size: number | null;
  sample_seed: string | null;
  sample_bound_hash: string | null;
  sample_bound_id: string | null;
  winner: string | null;
}

export const variantPlanColumns = (sql: postgres.Sql) => sql`
  jsonb_array_length(coalesce(payload -> 'variants', '[]'::jsonb)) as alternatives,
  (payload ->> 'sample')::float8 as sample, (payload ->> 'winnerAfterMinutes')::int as winner_after_minutes,
  sample_size, sample_seed::text, sample_bound_hash::text, sample_bound_id, winner`;

export function variantPhase(row: VariantPlanRow): VariantPhase {
  if (row.alternatives === 0) return 'none';
  if (row.sample === null || row.winner_after_minutes === null) return 'split';
  if (row.sample_size === null) return 'sample';
  return row.winner === null ? 'waiting' : 'winner';
}

/** `ceil(sample × targets)`, without the float error that makes ceil(0.07 × 100) 8. */
export const sampleSizeOf = (sample: number, targets: number) => Math.min(targets, Math.ceil(sample * targets - 1e-9));

/** A fresh seed for the sample's hash, as PostgreSQL's bigint text. */
export const newSampleSeed = () => randomBytes(8).readBigInt64BE().toString();

/** The sample's order: a hash of each id under the send's seed, then the id. */
export const sampleOrder = (sql: postgres.Sql, column: postgres.Fragment, seed: string) =>
  sql`hashtextextended(${column}::text, ${seed}::bigint), ${column}`;

/** True for a target above the sample's bound: not in the sample. */
export const outsideSample = (sql: postgres.Sql, column: postgres.Fragment, row: VariantPlanRow) =>
  sql`(hashtextextended(${column}::text, ${row.sample_seed}::bigint), ${column})
    > (${row.sample_bound_hash}::bigint, ${row.sample_bound_id}::uuid)`;

/**
 * The letter of each planned target (a column of the `numbered` step), or null without variants:
 * split (round-robin over a random order, from `offset`) or the winner's.
 */
export function letterExpression(sql: postgres.Sql, phase: VariantPhase, row: VariantPlanRow, offset: number) {
  if (phase === 'none' || phase === 'waiting') return null;
  if (phase === 'winner') return sql`${row.winner}::text`;
  const letters = row.alternatives + 1;
  return sql`chr(65 + ((${offset}::bigint + row_number() over (order by random()) - 1) % ${letters})::int)`;
}
