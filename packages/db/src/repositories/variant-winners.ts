import type { Database } from '../client.js';
import type { NotificationStatus, VariantStats } from '../schema.js';
import { inTransaction } from './deliveries/shared.js';

/**
 * The winner of an A/B test: the variant with the highest `clicked / sent`, a variant that sent
 * nothing counting as 0; ties go to the earlier letter (so `A`, the send's own content, when no
 * variant was clicked).
 */
export function pickWinner(stats: VariantStats, letters: readonly string[]): string {
  let best = letters[0] ?? 'A';
  let bestRate = -1;
  for (const letter of letters) {
    const { sent = 0, clicked = 0 } = stats[letter] ?? {};
    const rate = sent > 0 ? clicked / sent : 0;
    if (rate > bestRate) {
      best = letter;
      bestRate = rate;
    }
  }
  return best;
}

export interface ChosenWinner {
  id: string;
  winner: string;
  /** `queued` or `sending`: the rest of the targets must be planned (its fan-out queued). */
  status: NotificationStatus;
}

/**
 * Chooses the winner of the oldest A/B test whose time has come (`winner_at`, set when its sample
 * was planned), in one transaction that claims the row with `FOR UPDATE SKIP LOCKED`, as the
 * scheduler starts scheduled sends: several workers share the due tests and never choose twice.
 * PostgreSQL is the record, so a restart of every process or a Redis that lost its data delays the
 * choice by one pass at most. Null when none is due.
 */
export async function chooseDueWinner(db: Database): Promise<ChosenWinner | null> {
  return db.$client.begin(async (transaction) => {
    const sql = inTransaction(transaction);
    const [due] = await sql<
      { id: string; variant_stats: VariantStats; alternatives: number; status: NotificationStatus }[]
    >`
      select id, variant_stats, jsonb_array_length(coalesce(payload -> 'variants', '[]'::jsonb)) as alternatives, status
      from notifications
      where winner is null and winner_at is not null and winner_at <= now()
      order by winner_at limit 1
      for update skip locked`;
    if (!due) return null;
    const letters = ['A', 'B', 'C', 'D'].slice(0, due.alternatives + 1);
    const winner = pickWinner(due.variant_stats, letters);
    await sql`update notifications set winner = ${winner}, updated_at = now() where id = ${due.id}`;
    return { id: due.id, winner, status: due.status };
  }) as Promise<ChosenWinner | null>;
}
