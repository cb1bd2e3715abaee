import { Type } from 'typebox';
import { RequiredString } from './common.js';

const LanguageSchema = Type.Union([Type.Literal('ja'), Type.Literal('en')], {
  description:
    'The language of the account’s e-mails and dashboard: chosen at registration from the `language` field, else the `wp_lang` cookie, else Accept-Language (Japanese when the browser prefers it, English otherwise)',
});

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    plan: Type.String({ description: 'free, pro or enterprise' }),
    emailVerified: Type.Boolean({
      description: 'The owner proved control of the e-mail (our verification link, or GitHub verified it)',
    }),
    language: LanguageSchema,
    role: Type.Union([Type.Literal('customer'), Type.Literal('operator')], {
      description: '`operator`: may use the operator console (`pnpm admin grant-operator`)',
    }),
    totpEnabled: Type.Boolean({
      description: 'Two-factor sign-in is on: signing in also takes a code from the authenticator app',
    }),
  },
  { $id: 'User' },
);

/** A code from the authenticator app: six digits (a longer string is refused as wrong, not as input). */
const TotpCode = (description: string) => Type.String({ maxLength: 64, description, examples: ['492039'] });
const RecoveryCode = Type.String({
  maxLength: 64,
  description:
    'One of the recovery codes shown when two-factor sign-in was turned on, instead of `totp`; each works once',
  examples: ['k7m2q-x4t9a'],
});

/** What a sign-in (or a change that asks for it) carries for two-factor sign-in. */
const SecondFactorFields = {
  totp: Type.Optional(
    TotpCode('With two-factor sign-in on: the authenticator’s current six-digit code (each code signs in once)'),
  ),
  recoveryCode: Type.Optional(RecoveryCode),
};

export const CredentialsBody = Type.Object({
  email: RequiredString('E-mail address; compared case-insensitively', { examples: ['owner@example.com'] }),
  password: RequiredString('8 to 128 characters, not one of the 10,000 most common passwords', {
    examples: ['correct horse battery staple'],
  }),
  ...SecondFactorFields,
});

export const SecondFactorBody = Type.Object(SecondFactorFields);

export const TotpSetupResponse = Type.Object({
  secret: Type.String({ description: 'The shared secret in base32 (RFC 4648), for typing into the app by hand' }),
  otpauthUrl: Type.String({
    description:
      'The `otpauth://totp/…` URL for a QR code: SHA-1, 6 digits, 30-second steps (RFC 6238), issuer and account named',
  }),
});

export const TotpCodeBody = Type.Object({
  code: RequiredString('The authenticator’s current six-digit code', { examples: ['492039'] }),
});

export const RecoveryCodesResponse = Type.Object({
  recoveryCodes: Type.Array(Type.String(), {
    minItems: 10,
    maxItems: 10,
    description: 'Ten single-use codes for signing in without the authenticator. Shown only in this answer.',
  }),
});

export const DeleteAccountBody = Type.Object({
  password: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'The account’s password (an account made with GitHub that never set one gives none)',
    }),
  ),
  ...SecondFactorFields,
});

export const RegisterBody = Type.Object({
  email: RequiredString('E-mail address; compared case-insensitively', { examples: ['owner@example.com'] }),
  password: RequiredString('8 to 128 characters', { examples: ['correct horse battery staple'] }),
  language: Type.Optional(LanguageSchema),
});

export const UpdateMeBody = Type.Object({ language: LanguageSchema });

export const SessionResponse = Type.Object({
  user: UserSchema,
  token: Type.String({ description: 'Session token `wps_…`; also set as the HttpOnly cookie `wp_session`' }),
});

export const MeResponse = Type.Object({ user: UserSchema });

export const SignInStatusResponse = Type.Object({
  user: Type.Union([UserSchema, Type.Null()], { description: 'The signed-in user; null when not signed in' }),
});

export const ChangePasswordBody = Type.Object({
  currentPassword: RequiredString('The account’s password now', { examples: ['correct horse battery staple'] }),
  newPassword: RequiredString('The new password: 8 to 128 characters', { examples: ['a new and longer passphrase'] }),
});

export const ChangePasswordResponse = Type.Object({
  user: UserSchema,
  endedSessions: Type.Integer({ description: 'How many other sessions of the account were ended' }),
});

export const ProvidersResponse = Type.Object({
  github: Type.Boolean({
    description: 'Whether "Sign in with GitHub" is configured (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET)',
  }),
});

export const TokenBody = Type.Object({
  token: RequiredString('The token from the link in the e-mail'),
});

export const PasswordResetBody = Type.Object({
  email: RequiredString('E-mail address of the account', { examples: ['owner@example.com'] }),
});

export const PasswordResetConfirmBody = Type.Object({
  token: RequiredString('The token from the link in the e-mail'),
  password: RequiredString('The new password: 8 to 128 characters, not one of the 10,000 most common passwords'),
});

export const SessionSchema = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.String({ format: 'date-time', description: 'Recorded at most once a minute' }),
  userAgent: Type.Union([Type.String(), Type.Null()], { description: 'User-Agent of the last recorded use' }),
  current: Type.Boolean({ description: 'The session making this request' }),
});

export const SessionListResponse = Type.Object({ sessions: Type.Array(SessionSchema) });

export const SessionIdParams = Type.Object({ id: Type.String({ description: 'Session id (uuid)' }) });
