/*
 * Reading a subscriber file in the browser before anything is sent: JSON lines of
 * PushSubscription.toJSON() (this service's `format=jsonl` export is such a file), or a CSV with
 * `endpoint,p256dh,auth[,uid,tags]` (with that header, or without one). Only the file's shape is
 * checked here; whether keys and push hosts are acceptable is the API's answer, per entry.
 */

export interface ImportEntry {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  uid?: string;
  tags?: Record<string, string>;
}

/** Why a file cannot be read: the 1-based line, and what is wrong there. */
export type FileProblem =
  | 'notJson'
  | 'notObject'
  | 'missingFields'
  | 'badTags'
  | 'columns'
  | 'quote'
  | 'csvExportWithoutKeys'
  | 'empty';

export interface ParsedFile {
  entries: ImportEntry[];
  /** The file line each entry starts on, for the refusals summary. */
  lines: number[];
}

export class ImportFileError extends Error {
  constructor(
    readonly line: number,
    readonly problem: FileProblem,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

function tagsFrom(value: unknown, line: number): Record<string, string> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let tags = value;
  if (typeof value === 'string') {
    try {
      tags = JSON.parse(value);
    } catch {
      throw new ImportFileError(line, 'badTags');
    }
  }
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) throw new ImportFileError(line, 'badTags');
  const entries = Object.entries(tags);
  if (entries.some(([, tag]) => typeof tag !== 'string')) throw new ImportFileError(line, 'badTags');
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as Record<string, string>);
}

function entryOf(
  fields: { endpoint?: unknown; p256dh?: unknown; auth?: unknown; uid?: unknown; tags?: unknown },
  line: number,
): ImportEntry {
  const { endpoint, p256dh, auth, uid } = fields;
  if (!isText(endpoint) || !isText(p256dh) || !isText(auth)) throw new ImportFileError(line, 'missingFields');
  const tags = tagsFrom(fields.tags, line);
  return {
    endpoint,
    keys: { p256dh, auth },
    ...(isText(uid) ? { uid } : {}),
    ...(tags ? { tags } : {}),
  };
}

function parseJsonLines(text: string): ParsedFile {
  const entries: ImportEntry[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ImportFileError(line, 'notJson');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ImportFileError(line, 'notObject');
    }
    const object = value as Record<string, unknown>;
    const keys = (object.keys ?? {}) as Record<string, unknown>;
    entries.push(
      entryOf(
        { endpoint: object.endpoint, p256dh: keys.p256dh, auth: keys.auth, uid: object.uid, tags: object.tags },
        line,
      ),
    );
    lines.push(line);
  });
  return { entries, lines };
}

/** RFC 4180 records (CRLF or LF), each with the line it starts on. */
function csvRecords(text: string): { fields: string[]; line: number }[] {
  const records: { fields: string[]; line: number }[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        if (char === '\n') line++;
        field += char;
      }
    } else if (char === '"') {
      if (field !== '' || wasQuoted) throw new ImportFileError(line, 'quote');
      quoted = true;
      wasQuoted = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
      wasQuoted = false;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (fields.length > 1 || fields[0] !== '') records.push({ fields, line: start });
      fields = [];
      field = '';
      wasQuoted = false;
      line++;
      start = line;
    } else {
      if (wasQuoted) throw new ImportFileError(line, 'quote');
      field += char;
    }
  }
  if (quoted) throw new ImportFileError(start, 'quote');
  fields.push(field);
  if (fields.length > 1 || fields[0] !== '') records.push({ fields, line: start });
  return records;
}

const CSV_COLUMNS = ['endpoint', 'p256dh', 'auth', 'uid', 'tags'] as const;

function parseCsv(text: string): ParsedFile {
  const records = csvRecords(text);
  const first = records[0];
  if (!first) throw new ImportFileError(1, 'empty');
  const header = first.fields.map((name) => name.trim());
  // This service's CSV export lists subscribers without their keys: only its JSON lines move them.
  if (header[0] === 'id' && header.includes('endpoint') && !header.includes('p256dh')) {
    throw new ImportFileError(first.line, 'csvExportWithoutKeys');
  }
  const hasHeader = header.includes('endpoint');
  const columns: readonly string[] = hasHeader ? header : CSV_COLUMNS;
  if (hasHeader && !(header.includes('p256dh') && header.includes('auth'))) {
    throw new ImportFileError(first.line, 'missingFields');
  }
  const entries: ImportEntry[] = [];
  const lines: number[] = [];
  for (const record of hasHeader ? records.slice(1) : records) {
    if (record.fields.length < 3 || record.fields.length > columns.length) {
      throw new ImportFileError(record.line, 'columns');
    }
    const row = Object.fromEntries(columns.map((name, index) => [name, record.fields[index]?.trim()]));
    entries.push(entryOf(row, record.line));
    lines.push(record.line);
  }
  return { entries, lines };
}

/** The file's subscriptions; throws ImportFileError naming the first line that cannot be read. */
export function parseImportFile(text: string): ParsedFile {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/).find((line) => line.trim() !== '');
  if (firstLine === undefined) throw new ImportFileError(1, 'empty');
  const parsed = firstLine.trimStart().startsWith('{') ? parseJsonLines(body) : parseCsv(body);
  if (parsed.entries.length === 0) throw new ImportFileError(1, 'empty');
  return parsed;
}

/** The API takes up to 10,000 entries and 4 MiB a request; batches stay under both. */
export const BATCH_ENTRIES = 10_000;
export const BATCH_BYTES = 3.5 * 1024 * 1024;

/** Consecutive slices [start, end) of the entries, each a request's worth. */
export function batchesOf(entries: readonly ImportEntry[]): { start: number; end: number }[] {
  const batches: { start: number; end: number }[] = [];
  let start = 0;
  let bytes = 0;
  const encoder = new TextEncoder();
  entries.forEach((entry, index) => {
    const size = encoder.encode(JSON.stringify(entry)).length + 1;
    if (index > start && (index - start >= BATCH_ENTRIES || bytes + size > BATCH_BYTES)) {
      batches.push({ start, end: index });
      start = index;
      bytes = 0;
    }
    bytes += size;
  });
  if (start < entries.length) batches.push({ start, end: entries.length });
  return batches;
}
