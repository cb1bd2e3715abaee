import type { PersonalAccessToken } from '@webpush/db';

export const publicAccessToken = (token: PersonalAccessToken) => ({
  id: token.id,
  name: token.name,
  createdAt: token.createdAt.toISOString(),
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
});
