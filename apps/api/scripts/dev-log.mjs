// `pnpm dev`'s view of the processes' logs: each JSON line of pino turned into one line a person
// reads (time, level, message, the fields that matter), one line per request instead of two, none
// for the files Vite serves to the dashboard, and for an e-mail that was logged instead of sent, its
// links on lines of their own. A small formatter rather than pino-pretty: it needs the request
// pairing and the e-mail links anyway, and adds no dependency. Production logs stay JSON.
import { readFileSync } from 'node:fs';

const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS = { 10: 90, 20: 90, 30: 32, 40: 33, 50: 31, 60: 35 };
const QUIET_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime']);

/** What Vite serves the dashboard in development: modules, its client, dependencies, sources, assets. */
const VITE_PATH =
  /^\/(?:@vite\/|@fs\/|@id\/|@react-refresh|node_modules\/|src\/|assets\/)|\.(?:js|mjs|ts|tsx|css|map|svg|png|ico|woff2?)$/;
/** The service's own paths, whatever their extension (the SDK files are /sdk/*.js). */
const SERVICE_PATH = /^\/(?:api|sdk|c|docs|demo|admin)(?:\/|$)/;
export const isViteAsset = (url) => {
  if (typeof url !== 'string') return false;
  const path = url.split('?', 1)[0];
  return !SERVICE_PATH.test(path) && VITE_PATH.test(path);
};

const twoDigits = (value) => String(value).padStart(2, '0');
const clock = (time) => {
  const date = new Date(time);
  return `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
};
const showValue = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The https/http links of a text, in order, each once. */
export const linksIn = (text) => [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])];

/**
 * A formatter with its own memory of requests in flight (their method and path, by `reqId`).
 * `format(line)` returns the lines to print, or [] to print nothing.
 */
export function createDevLogFormatter({ colour = false, readFile = (path) => readFileSync(path, 'utf8') } = {}) {
  const requests = new Map();
  const paint = (code, text) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);

  const head = (entry) => {
    const level = LEVELS[entry.level] ?? String(entry.level);
    return `${paint(90, clock(entry.time ?? Date.now()))} ${paint(COLOURS[entry.level] ?? 0, level.padEnd(5))}`;
  };

  const fieldsOf = (entry) =>
    Object.entries(entry)
      .filter(([key, value]) => !QUIET_FIELDS.has(key) && key !== 'err' && key !== 'mail' && value !== undefined)
      .map(([key, value]) => `${paint(90, `${key}=`)}${showValue(value)}`)
      .join(' ');

  /** An e-mail written to the log instead of sent: who, what, and every link on a line of its own. */
  const mailLines = (entry) => {
    const lines = [`${head(entry)} e-mail to ${entry.mail.to}: ${entry.mail.subject}`];
    // The log's copy has its tokens redacted; the whole message is in the outbox file the line names.
    let text = entry.mail.text ?? '';
    if (typeof entry.file === 'string') {
      try {
        text = readFile(entry.file);
      } catch {
        lines.push(`      (could not read ${entry.file})`);
      }
    }
    for (const link of linksIn(text)) lines.push(`      ${paint(36, link)}`);
    if (typeof entry.file === 'string') lines.push(`      ${paint(90, `whole message: ${entry.file}`)}`);
    return lines;
  };

  return function format(line) {
    if (!line.startsWith('{')) return [line];
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      return [line];
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number') return [line];

    if (entry.req && entry.msg === 'incoming request') {
      requests.set(entry.reqId, entry.req);
      return [];
    }
    if (entry.res && entry.msg === 'request completed') {
      const req = requests.get(entry.reqId);
      requests.delete(entry.reqId);
      if (!req || isViteAsset(req.url)) return [];
      const status = entry.res.statusCode;
      const ms = typeof entry.responseTime === 'number' ? ` ${Math.round(entry.responseTime)} ms` : '';
      const colourOfStatus = status >= 500 ? 31 : status >= 400 ? 33 : 0;
      return [`${head(entry)} ${req.method} ${req.url} ${paint(colourOfStatus, String(status))}${ms}`];
    }
    // The API's own one line per request (LOG_REQUESTS=line): method, path, status, ms.
    if ((entry.msg === 'request' || entry.msg === 'request errored') && typeof entry.method === 'string') {
      if (typeof entry.url !== 'string' || isViteAsset(entry.url)) return [];
      const status = Number(entry.status);
      const ms = typeof entry.ms === 'number' ? ` ${Math.round(entry.ms)} ms` : '';
      const colourOfStatus = status >= 500 ? 31 : status >= 400 ? 33 : 0;
      const lines = [`${head(entry)} ${entry.method} ${entry.url} ${paint(colourOfStatus, String(status))}${ms}`];
      const stack = entry.err && (typeof entry.err.stack === 'string' ? entry.err.stack : entry.err.message);
      if (typeof stack === 'string')
        for (const stackLine of stack.split('\n')) lines.push(`      ${paint(31, stackLine)}`);
      return lines;
    }
    if (entry.mail && typeof entry.mail === 'object') return mailLines(entry);

    const lines = [[head(entry), entry.msg ?? '', fieldsOf(entry)].filter(Boolean).join(' ')];
    if (entry.err) {
      const stack = typeof entry.err.stack === 'string' ? entry.err.stack : `${entry.err.type}: ${entry.err.message}`;
      for (const stackLine of stack.split('\n')) lines.push(`      ${paint(31, stackLine)}`);
    }
    return lines;
  };
}
