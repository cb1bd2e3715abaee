import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A throwaway self-signed TLS certificate for `localhost` / 127.0.0.1, made at test time with
 * node:crypto and a minimal DER writer, so no key is ever committed and no `openssl` binary is
 * needed. TEST-ONLY: the key lives in memory (and a temp file) for one test process.
 */

const der = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  const length = body.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else if (length < 0x100) header = Buffer.from([tag, 0x81, length]);
  else header = Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([header, body]);
};

const sequence = (...items: Buffer[]) => der(0x30, ...items);
const set = (...items: Buffer[]) => der(0x31, ...items);
const explicit = (n: number, ...items: Buffer[]) => der(0xa0 + n, ...items);
const octetString = (content: Buffer) => der(0x04, content);
const bitString = (content: Buffer) => der(0x03, Buffer.from([0]), content);
const utf8String = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
const boolean = (value: boolean) => der(0x01, Buffer.from([value ? 0xff : 0]));

function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  // A leading 1 bit would make the INTEGER negative: prefix a zero byte.
  return der(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime `YYMMDDHHMMSSZ` (valid for years 1950–2049, enough for a test certificate). */
function utcTime(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-21T20:40:00.000Z
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return der(0x17, Buffer.from(text, 'latin1'));
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

export interface SelfSignedCertificate {
  /** PEM certificate: pass it as `ca` in-process, or write it where `NODE_EXTRA_CA_CERTS` points. */
  cert: string;
  /** PEM PKCS#8 private key for the server. */
  key: string;
}

export function createSelfSignedCertificate(
  commonName = 'localhost',
  days = 30,
  /** More DNS names the certificate is valid for (a push service's public name reached through a test proxy). */
  altNames: readonly string[] = [],
): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8String(commonName))));
  const now = Date.now();
  const subjectAltName = sequence(
    der(0x82, Buffer.from(commonName, 'latin1')), // dNSName
    ...altNames.map((altName) => der(0x82, Buffer.from(altName, 'latin1'))),
    der(0x87, Buffer.from([127, 0, 0, 1])), // iPAddress
  );
  const extensions = explicit(
    3,
    sequence(
      sequence(oid('2.5.29.17'), octetString(subjectAltName)),
      // CA:TRUE lets OpenSSL take this certificate as its own trust anchor.
      sequence(oid('2.5.29.19'), boolean(true), octetString(sequence(boolean(true)))),
    ),
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_WITH_SHA256,
    name,
    sequence(utcTime(new Date(now - 60 * 60 * 1000)), utcTime(new Date(now + days * 24 * 60 * 60 * 1000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature, as X.509 wants
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
