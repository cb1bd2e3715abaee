/** What the API takes beside a password when two-factor sign-in is on: one of the two, never both. */
export type SecondFactor = { totp: string } | { recoveryCode: string };

/**
 * One field takes either: six digits (spaces allowed, as authenticator apps group them) are the
 * authenticator's code, anything else a recovery code.
 */
export function secondFactorOf(input: string): SecondFactor {
  const compact = input.replace(/\s+/g, '');
  return /^\d{6}$/.test(compact) ? { totp: compact } : { recoveryCode: input.trim() };
}
