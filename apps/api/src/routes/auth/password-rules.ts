import { AppError, type ErrorDetail } from '@webpush/errors';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@webpush/plans';
import { dictionary } from '@zxcvbn-ts/language-common';

export const MIN_PASSWORD = MIN_PASSWORD_LENGTH;
export const MAX_PASSWORD = MAX_PASSWORD_LENGTH;
/** How many of the most common leaked passwords are refused. */
export const COMMON_PASSWORDS_CHECKED = 10_000;

/**
 * The most common passwords of public breach corpora, most common first, as zxcvbn-ts ships and
 * maintains them (`@zxcvbn-ts/language-common`, MIT). Only a plain list is needed here: a password
 * on it is the first thing a guesser tries, whatever its length. Lower-cased, and only those a
 * length rule would not already refuse.
 */
const COMMON_PASSWORDS = new Set(
  dictionary['passwords-common']
    .slice(0, COMMON_PASSWORDS_CHECKED)
    .map((password) => password.toLowerCase())
    .filter((password) => password.length >= MIN_PASSWORD),
);

export type PasswordRule = 'too_short' | 'too_long' | 'too_common';

/** The catalogue's message for each rule (still INVALID_INPUT). */
const details: Record<PasswordRule, ErrorDetail> = {
  too_short: 'PASSWORD_TOO_SHORT',
  too_long: 'PASSWORD_TOO_LONG',
  too_common: 'PASSWORD_TOO_COMMON',
};

export interface PasswordPolicy {
  /**
   * Also refuse the most common passwords (`PASSWORD_REFUSE_COMMON`). Off by default: the contract
   * promises that any password of 8 to 128 characters registers, and clients rely on that.
   */
  refuseCommon: boolean;
}

/** The first rule `password` breaks, or null. Lengths count characters, not UTF-16 units. */
export function brokenPasswordRule(password: string, policy: PasswordPolicy): PasswordRule | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD) return 'too_short';
  if (length > MAX_PASSWORD) return 'too_long';
  if (policy.refuseCommon && COMMON_PASSWORDS.has(password.toLowerCase())) return 'too_common';
  return null;
}

/** `password` if it keeps every rule; else 400 INVALID_INPUT whose message names the rule broken. */
export function validPassword(password: string, policy: PasswordPolicy): string {
  const rule = brokenPasswordRule(password, policy);
  if (rule) throw new AppError('INVALID_INPUT', { detail: details[rule] });
  return password;
}
