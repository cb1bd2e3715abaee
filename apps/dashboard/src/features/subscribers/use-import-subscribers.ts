import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.js';
import { batchesOf, ImportFileError, parseImportFile } from './import-file.js';

/** Refusals of one error code: how many, and the file lines they came from. */
export interface Refusals {
  code: string;
  lines: number[];
}

export type ImportState =
  | { phase: 'idle' }
  | { phase: 'reading' }
  | { phase: 'malformed'; error: ImportFileError }
  | { phase: 'sending'; sent: number; total: number }
  | { phase: 'done'; total: number; imported: number; updated: number; refusals: Refusals[] }
  | { phase: 'failed'; sent: number; total: number; error: unknown };

/**
 * Reads the file in the browser (a malformed one sends nothing), then sends it in batches the API
 * takes, one after another, counting what each answered.
 */
export function useImportSubscribers(appId: string) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<ImportState>({ phase: 'idle' });

  const run = async (file: File) => {
    setState({ phase: 'reading' });
    let parsed: ReturnType<typeof parseImportFile>;
    try {
      parsed = parseImportFile(await file.text());
    } catch (error) {
      if (!(error instanceof ImportFileError)) throw error;
      setState({ phase: 'malformed', error });
      return;
    }
    const { entries, lines } = parsed;
    const total = entries.length;
    let imported = 0;
    let updated = 0;
    const refused = new Map<string, number[]>();
    let sent = 0;
    setState({ phase: 'sending', sent, total });
    try {
      for (const { start, end } of batchesOf(entries)) {
        const answer = await call(
          api.POST('/api/v1/apps/{appId}/subscribers/import', {
            params: { path: { appId } },
            body: { subscribers: entries.slice(start, end) },
          }),
        );
        imported += answer.imported;
        updated += answer.updated;
        for (const { index, code } of answer.rejected) {
          const list = refused.get(code) ?? [];
          list.push(lines[start + index] ?? 0);
          refused.set(code, list);
        }
        sent = end;
        setState({ phase: 'sending', sent, total });
      }
      const refusals = [...refused].map(([code, codeLines]) => ({ code, lines: codeLines }));
      setState({ phase: 'done', total, imported, updated, refusals });
    } catch (error) {
      setState({ phase: 'failed', sent, total, error });
    } finally {
      await queryClient.invalidateQueries({ queryKey: ['subscribers', appId] });
      await queryClient.invalidateQueries({ queryKey: ['app', appId] });
    }
  };

  return { state, run, busy: state.phase === 'reading' || state.phase === 'sending' };
}
