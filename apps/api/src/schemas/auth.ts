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
  },
  { $id: 'User' },
);

export const CredentialsBody = Type.Object({
  email: RequiredString('E-mail address; compared case-insensitively', { examples: ['owner@example.com'] }),
  password: RequiredString('8 to 128 characters, not one of the 10,000 most common passwords', {
    examples: ['correct horse battery staple'],
  }),
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
