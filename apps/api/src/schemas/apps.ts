import { Type } from 'typebox';
import { RequiredString } from './common.js';

export const AppSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  vapidPublicKey: Type.String({
    description: "VAPID public key (base64url, uncompressed P-256 point): the browser's applicationServerKey",
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const AppStatsSchema = Type.Object({
  activeSubscribers: Type.Integer(),
  expiredSubscribers: Type.Integer(),
  sendsThisMonth: Type.Integer({ description: 'Sends accepted this calendar month (UTC)' }),
});

export const CreateAppBody = Type.Object({
  name: RequiredString('Display name', { maxLength: 200, examples: ['My blog'] }),
});
export const AppResponse = Type.Object({ app: AppSchema });
export const AppWithStatsResponse = Type.Object({
  app: Type.Intersect([AppSchema, Type.Object({ stats: AppStatsSchema })]),
});
export const AppListResponse = Type.Object({ apps: Type.Array(AppSchema) });
