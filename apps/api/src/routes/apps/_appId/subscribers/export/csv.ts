import { Transform } from 'node:stream';

/**
 * RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in double quotes, a quote
 * inside doubled; records end with CRLF. A null is an empty field.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export const csvRecord = (fields: readonly (string | null)[]): string => `${fields.map(csvField).join(',')}\r\n`;

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** Bytes gathered before the transform writes: PostgreSQL sends each record as a message of its own. */
const WRITE_BYTES = 64 * 1024;

/**
 * PostgreSQL's CSV (`COPY … (FORMAT csv)`) as RFC 4180 has it: each record's LF becomes CRLF. A line
 * break inside a quoted field is data and stays as it is, so the transform follows the quoting
 * across chunks (a doubled quote toggles twice: no change). PostgreSQL quotes every field holding a
 * CR, so an LF outside quotes always ends a record. Records arrive one a message; they leave in
 * writes of about 64 KiB, not one HTTP chunk a record.
 */
export function crlfRecords(): Transform {
  let quoted = false;
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  const converted = (chunk: Buffer): Buffer => {
    let breaks = 0;
    let open = quoted;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) open = !open;
      else if (byte === LF && !open) breaks++;
    }
    if (breaks === 0) {
      quoted = open;
      return chunk;
    }
    const out = Buffer.allocUnsafe(chunk.length + breaks);
    let at = 0;
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) quoted = !quoted;
      else if (byte === LF && !quoted) {
        at += chunk.copy(out, at, from, i);
        out[at++] = CR;
        from = i;
      }
    }
    at += chunk.copy(out, at, from);
    return out;
  };
  const take = (): Buffer => {
    const gathered = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return converted(gathered);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      callback(null, pendingBytes >= WRITE_BYTES ? take() : undefined);
    },
    flush(callback) {
      callback(null, pendingBytes > 0 ? take() : undefined);
    },
  });
}
