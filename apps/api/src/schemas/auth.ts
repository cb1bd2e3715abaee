import { Type } from 'typebox';
import { RequiredString } from './common.js';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    plan: Type.String({ description: 'free, pro or enterprise' }),
  },
  { $id: 'User' },
);

export const CredentialsBody = Type.Object({
  email: RequiredString('E-mail address; compared case-insensitively', { examples: ['owner@example.com'] }),
  password: RequiredString('8 to 128 characters', { examples: ['correct horse battery staple'] }),
});

export const SessionResponse = Type.Object({
  user: UserSchema,
  token: Type.String({ description: 'Session token `wps_…`; also set as the HttpOnly cookie `wp_session`' }),
});

export const MeResponse = Type.Object({ user: UserSchema });

export const ProvidersResponse = Type.Object({
  github: Type.Boolean({
    description: 'Whether "Sign in with GitHub" is configured (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET)',
  }),
});
