import { randomBytes } from 'node:crypto';
import { claimTotpStep, redeemRecoveryCode, type User } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { totpSecretContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Secret, TOTP } from 'otpauth';

/** What a sign-in may carry besides the password: the authenticator's code, or a recovery code. */
export interface SecondFactor {
  totp?: string | undefined;
  recoveryCode?: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    twoFactor: {
      /** A new secret for the setup step: its base32, the `otpauth://` URL, and the sealed form to store. */
      newSecret(user: User): { secret: string; otpauthUrl: string; sealed: string };
      /** The time step a code matches under a sealed secret (this step or one either side), else null. */
      matchingStep(user: Pick<User, 'id'>, sealed: string, code: string): number | null;
      /** Ten fresh recovery codes and their keyed hashes. */
      newRecoveryCodes(): { codes: string[]; hashes: string[] };
      recoveryCodeHash(code: string): string;
      /**
       * The second step of a sign-in (password, GitHub) or of a change that asks for it: nothing
       * when two-factor sign-in is off; else TOTP_REQUIRED without a code, INVALID_CREDENTIALS (one
       * failed sign-in of `user`'s e-mail) for a wrong, replayed or used one. A code that passes is
       * spent: a TOTP step signs in once, a recovery code once ever.
       */
      verifySignIn(user: User, factor: SecondFactor): Promise<void>;
    };
  }
}

/** RFC 6238 as the contract pins it: SHA-1, 6 digits, 30-second steps; one step of clock drift either way. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
const DRIFT_STEPS = 1;
const RECOVERY_CODES = 10;
const SIX_DIGITS = /^\d{6}$/;

/** `abcde-fghij` from 50 random bits in base32 (no 0/1/8/9 to misread), lower case. */
function newRecoveryCode(): string {
  const base32 = new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32.toLowerCase();
  return `${base32.slice(0, 5)}-${base32.slice(5, 10)}`;
}

/** Case, spaces and dashes do not matter when a recovery code is typed back. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/**
 * Two-factor sign-in (docs/accounts.md) with `otpauth`'s RFC 6238 implementation. The secret is
 * sealed under ENCRYPTION_KEY bound to its account; recovery codes are kept as keyed hashes.
 */
export default fp(
  async (app: FastifyInstance) => {
    const issuer = new URL(app.config.publicUrl).host;
    const totpOf = (secret: Secret, label = '') =>
      new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret });

    const matchingStep = (user: Pick<User, 'id'>, sealed: string, code: string): number | null => {
      const token = code.trim();
      if (!SIX_DIGITS.test(token)) return null;
      const secret = Secret.fromBase32(app.secrets.open(sealed, totpSecretContext(user.id)));
      const timestamp = Date.now();
      const delta = totpOf(secret).validate({ token, timestamp, window: DRIFT_STEPS });
      if (delta === null) return null;
      return Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
    };
    const recoveryCodeHash = (code: string) => app.secrets.hash(`totp-recovery:${normaliseRecoveryCode(code)}`);

    app.decorate('twoFactor', {
      newSecret(user: User) {
        const secret = new Secret({ size: 20 });
        return {
          secret: secret.base32,
          otpauthUrl: totpOf(secret, user.email).toString(),
          sealed: app.secrets.seal(secret.base32, totpSecretContext(user.id)),
        };
      },
      matchingStep,
      newRecoveryCodes() {
        const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
        return { codes, hashes: codes.map(recoveryCodeHash) };
      },
      recoveryCodeHash,
      async verifySignIn(user: User, factor: SecondFactor) {
        if (user.totpEnabledAt === null || user.totpSecretSealed === null) return;
        const { totp, recoveryCode } = factor;
        if (totp === undefined && recoveryCode === undefined) throw new AppError('TOTP_REQUIRED');
        if (totp !== undefined) {
          const step = matchingStep(user, user.totpSecretSealed, totp);
          if (step !== null && (await claimTotpStep(app.db, user.id, step))) return;
        } else if (recoveryCode !== undefined) {
          if (await redeemRecoveryCode(app.db, user.id, recoveryCodeHash(recoveryCode))) return;
        }
        await app.loginFailures.failed(user.email);
        throw new AppError('INVALID_CREDENTIALS');
      },
    });
  },
  { name: 'two-factor', dependencies: ['config', 'db', 'secrets', 'limiters'] },
);
