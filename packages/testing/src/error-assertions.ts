import { type ErrorCode, errorCatalogue } from '@webpush/errors';
import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';

/** The `PUBLIC_URL` every test app gets unless a test overrides it (packages/testing `testConfig`). */
export const TEST_PUBLIC_URL = 'http://localhost:3000';

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
const PLAN_LIMIT_CODES: readonly ErrorCode[] = [
  'PLAN_LIMIT_EXCEEDED',
  'MONTHLY_LIMIT_EXCEEDED',
  'SUBSCRIBER_LIMIT_EXCEEDED',
];

export interface ErrorExpectation {
  /** Only where the contract answers a code with another status than the catalogue's (415 INVALID_INPUT). */
  status?: number;
  /** `PUBLIC_URL` of the app under test, for `upgrade_url`. */
  publicUrl?: string;
  /** A more precise Japanese message than the catalogue's (which password rule was broken). */
  message?: string;
}

/**
 * The contract's error answer, exactly: status, JSON content type, and a body of `error` (a Japanese
 * message) and `code`, plus `upgrade_url` = `${PUBLIC_URL}/pricing` on the three plan-limit codes only.
 */
export function assertError(
  t: Test,
  response: LightMyRequestResponse,
  code: ErrorCode,
  expectation: ErrorExpectation = {},
): void {
  t.equal(response.statusCode, expectation.status ?? errorCatalogue[code].status, `status of ${code}`);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/, `${code} is JSON`);
  const expected: Record<string, string> = { error: expectation.message ?? errorCatalogue[code].message, code };
  if (PLAN_LIMIT_CODES.includes(code)) expected.upgrade_url = `${expectation.publicUrl ?? TEST_PUBLIC_URL}/pricing`;
  t.strictSame(response.json(), expected, `body of ${code}`);
  t.match(expected.error, JAPANESE, `${code} has a Japanese message`);
}

/** `Set-Cookie` headers of a response, always as a list. */
export function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  if (header === undefined) return [];
  return Array.isArray(header) ? header : [header];
}

/** The attributes of the `wp_session` cookie set by a response, lower-cased names; null when none is set. */
export function sessionCookie(
  response: LightMyRequestResponse,
): { value: string; attributes: Map<string, string> } | null {
  const raw = setCookies(response).find((cookie) => cookie.startsWith('wp_session='));
  if (raw === undefined) return null;
  const [pair = '', ...rest] = raw.split(';').map((part) => part.trim());
  const attributes = new Map<string, string>();
  for (const attribute of rest) {
    const [name = '', ...value] = attribute.split('=');
    attributes.set(name.toLowerCase(), value.join('='));
  }
  return { value: decodeURIComponent(pair.slice('wp_session='.length)), attributes };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
