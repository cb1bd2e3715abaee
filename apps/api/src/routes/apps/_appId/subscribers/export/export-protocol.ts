/** What a subscriber export thread (export-thread.ts) and the route streaming its file say to each other. */

export type ExportFormat = 'csv' | 'jsonl';

/** The first message to a thread: the export it runs, on a connection of its own to `databaseUrl`. */
export interface ExportJob {
  kind: 'start';
  databaseUrl: string;
  appId: string;
  format: ExportFormat;
}

/** Leave to send one more chunk: the thread never has more chunks out than the route asked for. */
export interface ExportCredit {
  kind: 'more';
}

export type ToExportThread = ExportJob | ExportCredit;

export type FromExportThread =
  /** The next part of the file. */
  | { kind: 'chunk'; text: string }
  /** The file is complete and the thread's connection closed. */
  | { kind: 'end' }
  /** The export stopped (the database failed it); the file is incomplete. */
  | { kind: 'failed'; message: string };
