/**
 * What the API reference (/docs, /api/v1/openapi.json) says about each operation beyond its schema:
 * a description written for the person calling it, and an example of the request body and of the
 * answer. Keyed by `METHOD /path` as in the OpenAPI document; a route's own `description` wins.
 * `apps/api/test/openapi-reference.test.ts` fails when an operation has no description, a body has
 * no example, or an example does not validate against its schema.
 */

const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bH1example';
const P256DH = 'BLU6fZZGwfZCQar7utLiPvhRJsu1MUbRHjlTOx8r6OBJWh5t2iksT6Gqpfh2cR-vS_mynM1_rqwSkDo2d4f3GuA';
const AUTH = 'x8Tewbiv0CG7pXUjotWHxA';
const NOTIFICATION_ID = '3f2c9a4e-8b1d-4c6e-9f0a-2b7d5e1c8a90';
const APP_ID = 'b6e3c1d2-7a4f-4e8b-9c0d-1f2a3b4c5d6e';
const VAPID_PUBLIC_KEY = P256DH;
const CREATED_AT = '2026-11-25T09:00:00.000Z';

export interface OperationDoc {
  description: string;
  /** The request body (operations with a body). */
  request?: unknown;
  /** The success answer (operations that answer JSON). */
  response?: unknown;
}

const app = {
  id: APP_ID,
  name: 'My blog',
  vapidPublicKey: VAPID_PUBLIC_KEY,
  createdAt: CREATED_AT,
  allowedOrigins: ['https://www.example.com'],
  requireSignedTags: false,
  signaturesExpire: false,
  pushFormat: 'legacy',
  defaultUrl: null,
  timeZone: 'Asia/Tokyo',
  frequencyCap: { max: 2, hours: 24 },
  role: 'owner',
};
const INVITATION_ID = 'e2f3a4b5-c6d7-4e8f-9a0b-1c2d3e4f5a6b';
const MEMBER_ID = 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f';
const user = {
  id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  email: 'owner@example.com',
  plan: 'free',
  emailVerified: true,
  language: 'ja',
  role: 'customer',
  totpEnabled: false,
};

const notification = {
  id: NOTIFICATION_ID,
  status: 'completed',
  targets: 1250,
  sent: 1238,
  failed: 2,
  expired: 10,
  skipped: 0,
  shown: 904,
  clicked: 131,
  actionClicks: { open: 97 },
  converted: 12,
  conversionValue: 36000,
  winner: null,
  createdAt: CREATED_AT,
  completedAt: '2026-11-25T09:00:04.000Z',
  failureReasons: { 'push service 410': 10, 'push service 500': 2 },
  title: 'The sale starts now',
  body: 'Today only: 20% off everything.',
  url: 'https://www.example.com/sale',
};
const scheduled = {
  ...notification,
  status: 'canceled',
  sent: 0,
  failed: 0,
  expired: 0,
  shown: 0,
  clicked: 0,
  actionClicks: {},
  converted: 0,
  conversionValue: 0,
  completedAt: CREATED_AT,
  sendAt: '2026-11-26T09:00:00.000Z',
  failureReasons: {},
};
const webhook = {
  url: 'https://example.com/webhooks/push',
  events: ['notification.completed', 'subscription.expired'],
  status: 'active',
  failuresInARow: 0,
  pausedUntil: null,
  failingSince: null,
  lastError: { reason: 'HTTP 503', status: 503, at: '2026-11-24T09:04:00.000Z' },
  disabledAt: null,
  secret: 'whsec_Mf3Kq8Zx1Vb6Nc0Lp4Rt7Wy2Hs5Dj9Ga',
};
const tenant = {
  id: user.id,
  email: user.email,
  plan: 'pro',
  role: 'customer',
  suspended: false,
  suspendedAt: null,
  createdAt: CREATED_AT,
  apps: 2,
  subscribers: 1250,
  sendsThisMonth: 31,
};
const planRequest = {
  id: 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b',
  plan: 'pro',
  message: 'We go live next month and need Pro.',
  status: 'open',
  createdAt: CREATED_AT,
  resolvedAt: null,
};
const withStats = { ...app, stats: { activeSubscribers: 1250, expiredSubscribers: 37, sendsThisMonth: 4 } };

export const operations: Record<string, OperationDoc> = {
  // Sending
  'POST /api/v1/notify': {
    description:
      'Sends one notification to every active subscriber of the API key’s app, or only to one `endpoint`, to the subscribers carrying one of `uids`, or to those whose tags contain all of `tags`. Answers 202 as soon as the send is stored and queued; delivery happens in the background (follow it with GET /notifications/{id} or a webhook). With `sendAt`, the send is scheduled instead. An `Idempotency-Key` header makes a retried request answer the first send instead of sending twice.',
    request: {
      title: 'The sale starts now',
      body: 'Today only: 20% off everything.',
      url: 'https://www.example.com/sale',
      tags: { plan: 'pro' },
    },
    response: { notification: { id: NOTIFICATION_ID, status: 'queued', targets: 1250 } },
  },
  'POST /api/v1/notify/batch': {
    description:
      'Sends one notification to a list of up to 100 subscriptions of the app, named by endpoint. Endpoints that are not subscriptions of the app, or whose subscription has expired, are listed in the answer and not sent to.',
    request: {
      endpoints: [ENDPOINT],
      title: 'Your order has shipped',
      body: 'Order #1042 arrives tomorrow.',
      url: 'https://www.example.com/orders/1042',
    },
    response: {
      notification: { id: NOTIFICATION_ID, status: 'queued', targets: 1 },
      unknownEndpoints: [],
      expiredEndpoints: [],
    },
  },
  'GET /api/v1/notifications/{id}': {
    description:
      'One send of the API key’s app: its status (`scheduled`, `queued`, `sending`, `completed`, `failed`, `canceled`), how many pushes were sent, failed or found expired, the engagement counted so far, and why pushes failed (`failureReasons`).',
    response: { notification },
  },
  'GET /api/v1/notifications/{id}/report': {
    description:
      'What became of each target of a send, as a CSV file to reconcile with your own data: its A/B variant, whether the push was sent, failed (and why) or found expired, and whether it was shown, clicked and converted.',
  },
  'DELETE /api/v1/notifications/{id}': {
    description: 'Cancels a scheduled send before it starts.',
    response: { notification: scheduled },
  },
  'POST /api/v1/apps/{appId}/test-notification': {
    description:
      'Sends the fixed test notification to one browser subscription given in the body, synchronously, and answers with what the push service said. Nothing is stored or counted: use it to check a subscription or a set-up.',
    request: { subscription: { endpoint: ENDPOINT, p256dh: P256DH, auth: AUTH } },
    response: { ok: true },
  },
  // Subscribing
  'POST /api/v1/subscribe': {
    description:
      'Stores a browser’s push subscription (`PushSubscription.toJSON()` as is, or flat) for the API key’s app, with your own `uid` and `tags` if you give them. The web SDK calls it; subscribing the same endpoint again updates it. With a `subscribe_only` key from a browser, a `uid` needs your server’s `uidSignature`.',
    request: { endpoint: ENDPOINT, p256dh: P256DH, auth: AUTH, tags: { lang: 'ja' } },
    response: { subscriber: { id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f' } },
  },
  'PATCH /api/v1/subscribe': {
    description: 'Changes the `uid` or `tags` of a stored subscription, named by its endpoint.',
    request: { endpoint: ENDPOINT, uid: 'user-42', tags: { plan: 'pro' } },
    response: { subscriber: { id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f' } },
  },
  'DELETE /api/v1/subscribe': {
    description: 'Removes a subscription (the browser unsubscribed). Answers 204 whether or not it existed.',
    request: { endpoint: ENDPOINT },
  },
  'GET /api/v1/vapid-public-key': {
    description:
      'The VAPID public key browsers subscribe with (`applicationServerKey` of `pushManager.subscribe`) for the API key’s app.',
    response: { vapidPublicKey: VAPID_PUBLIC_KEY },
  },
  'POST /api/v1/events': {
    description:
      'Counts that a notification was shown or clicked (and which button). The SDK’s service worker calls it; the answer is the same whether or not the notification or subscription exists.',
    request: { notificationId: NOTIFICATION_ID, endpoint: ENDPOINT, type: 'clicked', action: 'open' },
    response: {},
  },
  'GET /c/{token}': {
    description:
      'The click link of a declarative notification (Safari opens it without running any script): counts the click once and redirects to the notification’s page.',
  },
  // Apps and keys
  'POST /api/v1/apps': {
    description:
      'Creates an app with a new VAPID key pair, or with the pair your existing subscribers were made with (`vapidKeys`), so that they can be imported and keep working. Your plan sets how many apps you may have.',
    request: { name: 'My blog' },
    response: { app },
  },
  'GET /api/v1/apps': {
    description: 'Your apps, oldest first, each with its active subscribers and this month’s sends.',
    response: { apps: [{ ...app, stats: { activeSubscribers: 1250, sendsThisMonth: 4 } }] },
  },
  'GET /api/v1/apps/{appId}': {
    description: 'One of your apps, with its subscriber count and this month’s sends.',
    response: { app: withStats },
  },
  'DELETE /api/v1/apps/{appId}': {
    description: 'Deletes the app with its API keys, subscriptions and history. It cannot be undone.',
  },
  'GET /api/v1/apps/{appId}/usage': {
    description:
      'The app’s sends per day over the last `days` days (30 by default), and this month’s usage against the plan.',
    response: {
      month: { sends: 31, limit: 1000 },
      days: [
        { date: '2026-11-24', sends: 0 },
        { date: '2026-11-25', sends: 31 },
      ],
    },
  },
  'GET /api/v1/apps/{appId}/stats': {
    description:
      'The app’s history per UTC day over the last `days` days (30 by default, at most 90), today last: pushes sent, failed, expired and skipped, notifications shown, clicked and converted, and subscriptions made and ended. Counted as they happen, so the history outlives the retention of notifications and events.',
    response: {
      days: [
        {
          date: '2026-11-24',
          sent: 1180,
          failed: 3,
          expired: 17,
          skipped: 0,
          shown: 902,
          clicked: 131,
          converted: 12,
          subscribed: 41,
          unsubscribed: 9,
        },
        {
          date: '2026-11-25',
          sent: 0,
          failed: 0,
          expired: 0,
          skipped: 0,
          shown: 14,
          clicked: 2,
          converted: 1,
          subscribed: 6,
          unsubscribed: 1,
        },
      ],
    },
  },
  'POST /api/v1/apps/{appId}/keys': {
    description:
      'Creates an API key: `subscribe_only` for browsers (safe to put in a page), `notify` to send from your server, `full` to send and test. The key itself is shown only in this answer.',
    request: { scope: 'notify', name: 'Production server' },
    response: {
      key: {
        id: 'd1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a',
        name: 'Production server',
        scope: 'notify',
        createdAt: CREATED_AT,
        prefix: 'wpk_3Jd8f0',
        lastUsedAt: null,
      },
      secret: 'wpk_3Jd8f0Qm2Xz7Lk9Vb1Nc4Hs6Ta5Re0Wy8Uq2Pi7Oo',
    },
  },
  'GET /api/v1/apps/{appId}/keys': {
    description: 'The app’s API keys: name, scope and creation time, never the keys themselves.',
    response: {
      keys: [
        {
          id: 'd1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a',
          name: 'Production server',
          scope: 'notify',
          createdAt: CREATED_AT,
          prefix: 'wpk_3Jd8',
          lastUsedAt: '2026-11-26T10:12:00.000Z',
        },
      ],
    },
  },
  'DELETE /api/v1/apps/{appId}/keys/{keyId}': {
    description: 'Revokes an API key: every request with it answers 401 INVALID_API_KEY from then on.',
  },
  'GET /api/v1/apps/{appId}/notifications': {
    description: 'The app’s sends, newest first, a page at a time: pass `nextCursor` as `cursor` for the next page.',
    response: { notifications: [notification], nextCursor: null },
  },
  'DELETE /api/v1/apps/{appId}/notifications/{id}': {
    description: 'Cancels a scheduled send of the app from the dashboard.',
    response: { notification: scheduled },
  },
  'GET /api/v1/apps/{appId}/subscribers': {
    description: 'The app’s subscriptions, newest first, a page at a time, filtered by status, uid or tag.',
    response: {
      subscribers: [
        {
          id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
          endpoint: ENDPOINT,
          status: 'active',
          uid: 'user-42',
          tags: { plan: 'pro' },
          language: 'ja-JP',
          timeZone: 'Asia/Tokyo',
          vapidPublicKey: VAPID_PUBLIC_KEY,
          createdAt: CREATED_AT,
        },
      ],
      nextCursor: null,
    },
  },
  'POST /api/v1/apps/{appId}/subscribers/import': {
    description: 'Imports subscriptions made elsewhere into the app.',
    request: {
      subscribers: [{ endpoint: ENDPOINT, keys: { p256dh: P256DH, auth: AUTH }, uid: 'user-42', tags: { lang: 'ja' } }],
    },
    response: { imported: 1, updated: 0, rejected: [] },
  },
  'DELETE /api/v1/apps/{appId}/subscribers': {
    description:
      'Erases one visitor when they ask (GDPR article 17): every subscription carrying `uid`, active or expired, is deleted (not expired), with its shown, clicked and converted records and the `subscription.expired` webhook events that named it. The audit log records how many, never the uid.',
    response: { deleted: 2 },
  },
  'DELETE /api/v1/apps/{appId}/subscribers/{subscriberId}': {
    description: 'Removes one subscription of the app; the browser gets no more pushes from it.',
  },
  'GET /api/v1/apps/{appId}/webhook': {
    description:
      'The app’s webhook: its URL, the events it receives (not its secret), and whether deliveries go out. ' +
      'After WEBHOOK_BREAKER_FAILURES failed attempts in a row they pause (`paused`, until `pausedUntil`); ' +
      'after WEBHOOK_DISABLE_AFTER_MS (default 3 days) of nothing but failures they stop (`disabled`) and the ' +
      'owner is e-mailed. Events are kept pending meanwhile; resume with POST …/webhook/resume or a new URL.',
    response: {
      webhook: {
        url: 'https://example.com/webhooks/push',
        events: ['notification.completed', 'subscription.expired'],
        status: 'paused',
        failuresInARow: 6,
        pausedUntil: '2026-11-25T09:05:00.000Z',
        failingSince: '2026-11-25T08:58:10.000Z',
        lastError: { reason: 'HTTP 503', status: 503, at: '2026-11-25T09:04:00.000Z' },
        disabledAt: null,
      },
    },
  },
  'POST /api/v1/apps/{appId}/webhook/resume': {
    description:
      'Resumes deliveries of a paused or disabled webhook: the failure count, the pause and the disabling are ' +
      'reset, and the events held back are sent again (each with its same `webhook-id`). Changing the URL with ' +
      'PUT does the same.',
    response: {
      webhook: {
        url: 'https://example.com/webhooks/push',
        events: ['notification.completed', 'subscription.expired'],
        status: 'active',
        failuresInARow: 0,
        pausedUntil: null,
        failingSince: null,
        lastError: { reason: 'timeout', status: null, at: '2026-11-25T09:04:00.000Z' },
        disabledAt: null,
      },
    },
  },
  'DELETE /api/v1/apps/{appId}/webhook': { description: 'Removes the app’s webhook; events are no longer sent.' },
  'GET /api/v1/apps/{appId}/webhook/deliveries': {
    description: 'The webhook’s recent deliveries, newest first: each event, its attempts and the receiver’s answers.',
    response: {
      deliveries: [
        {
          id: 'f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f7a8b9c',
          messageId: 'msg_2Kd8Lq5Xz0Vb',
          type: 'notification.completed',
          url: 'https://example.com/webhooks/push',
          status: 200,
          durationMs: 84,
          response: 'ok',
          error: null,
          createdAt: CREATED_AT,
          messageStatus: 'delivered',
        },
      ],
    },
  },
  'POST /api/v1/apps/{appId}/webhook/deliveries/{deliveryId}/retry': {
    description: 'Sends an event to the receiver again, at once.',
    response: { delivery: { messageId: 'msg_2Kd8Lq5Xz0Vb', status: 'pending' } },
  },
  'POST /api/v1/apps/{appId}/webhook/rotate-secret': {
    description: 'Replaces the webhook’s signing secret; the new one is shown only in this answer.',
    response: { webhook: { ...webhook, secret: 'whsec_Qa7Ws2Ed5Rf8Tg1Yh4Uj6Ik9Ol3Pz0Xc' } },
  },
  'GET /api/v1/plans': {
    description: 'The plans and their limits: apps, subscribers per app and sends a month.',
    response: {
      plans: [
        { id: 'free', name: 'Free', limits: { apps: 1, subscribers: 1000, sendsPerMonth: 1000 } },
        { id: 'pro', name: 'Pro', limits: { apps: 10, subscribers: 100000, sendsPerMonth: 1000000 } },
      ],
    },
  },
  'GET /api/v1/plans/prices': {
    description: '',
    response: { prices: { free: '0', pro: '¥3,000 / month', enterprise: null }, operatorEmailed: true },
  },
  // Accounts
  'POST /api/v1/auth/login': {
    description:
      'Signs in with e-mail and password: answers a session token and sets the `wp_session` cookie. With two-factor sign-in on, the request also carries `totp` (the authenticator’s current code, each code once) or `recoveryCode`; without either the answer is 401 TOTP_REQUIRED.',
    request: { email: 'owner@example.com', password: 'correct horse battery staple' },
    response: { user, token: 'wps_8Hq2Lm5Xc0Vb7Nz3Kd9Fj1Ws6Pt4Ry2Ue8Io0Aa' },
  },
  'POST /api/v1/auth/totp/setup': {
    description:
      'Starts turning two-factor sign-in on: a new secret (RFC 6238: SHA-1, 6 digits, 30-second steps) as base32 and as an `otpauth://` URL for a QR code. Nothing changes for sign-in until POST /auth/totp/enable confirms a code of it.',
    response: {
      secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      otpauthUrl:
        'otpauth://totp/push.example.com:owner%40example.com?issuer=push.example.com&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
    },
  },
  'POST /api/v1/auth/totp/enable': {
    description:
      'Turns two-factor sign-in on with a current code of the secret from setup (400 INVALID_TOKEN when it does not match). Answers ten single-use recovery codes, shown only here: keep them somewhere safe.',
    request: { code: '492039' },
    response: {
      recoveryCodes: [
        'k7m2q-x4t9a',
        'p3w6z-r2n5d',
        'f4h7j-u2c6s',
        'b5v3x-l7q2e',
        'g6t4m-w3k7y',
        'a2d5f-h7j3n',
        'q4s6u-z2x5c',
        'e7r3t-y5u2i',
        'm6n4b-v2c7x',
        'l3k5j-g7h2d',
      ],
    },
  },
  'DELETE /api/v1/auth/totp': {
    description:
      'Turns two-factor sign-in off with a current code (or an unused recovery code); the secret and the recovery codes are deleted.',
    request: { code: '492039' },
  },
  'POST /api/v1/auth/github/totp': {
    description:
      'Completes a GitHub sign-in to an account with two-factor sign-in on. The callback made no session: it set the HttpOnly cookie `wp_totp_sign_in` (valid 10 minutes, single use) and sent the browser to /login?twoFactor=github, where this request carries the code (or a recovery code) with that cookie. Limited like password sign-in.',
    request: { totp: '492039' },
    response: { user: { ...user, totpEnabled: true }, token: 'wps_8Hq2Lm5Xc0Vb7Nz3Kd9Fj1Ws6Pt4Ry2Ue8Io0Aa' },
  },
  'DELETE /api/v1/auth/me': {
    description:
      'Deletes the account for good, in one transaction: its apps with their subscribers, sends, keys and webhooks, its sessions, access tokens and memberships. Needs the password (an account made with GitHub that never set one gives none) and, with two-factor sign-in on, `totp` or `recoveryCode`. Its API keys are refused from the next request on every API instance.',
    request: { password: 'correct horse battery staple', totp: '492039' },
  },
  'POST /api/v1/auth/logout': { description: 'Ends the current session and clears its cookie.' },
  'GET /api/v1/auth/me': { description: 'The signed-in account.', response: { user } },
  'GET /api/v1/auth/status': {
    description:
      'Whether the caller is signed in: the account, or `{user: null}` (200, not 401) without a valid session. For pages that only need to know; GET /auth/me keeps its 401.',
    response: { user },
  },
  'POST /api/v1/auth/password': {
    description:
      'Changes the password of the signed-in account. Needs the current password (401 INVALID_CREDENTIALS when wrong); the session that asks stays signed in, every other session of the account is ended. Rate limited like sign-in.',
    request: { currentPassword: 'correct horse battery staple', newPassword: 'a new and longer passphrase' },
    response: { user, endedSessions: 2 },
  },
  'PATCH /api/v1/auth/me': {
    description: 'Sets the account’s language (`ja` or `en`): the dashboard’s and the e-mails’.',
    request: { language: 'en' },
    response: { user: { ...user, language: 'en' } },
  },
  'GET /api/v1/auth/providers': {
    description: 'The sign-in methods this server offers besides e-mail and password.',
    response: { github: true },
  },
  'POST /api/v1/auth/verify-email': {
    description: 'Confirms the account’s e-mail address with the token from the verification e-mail.',
    request: { token: 'wpv_5Gh2Jk8Lm1Nb4Vc7Xz0Qw3Er6Ty9Ui2Op5As8Df' },
    response: { user },
  },
  'POST /api/v1/auth/verify-email/check': {
    description: '',
    request: { token: 'wpv_5Gh2Jk8Lm1Nb4Vc7Xz0Qw3Er6Ty9Ui2Op5As8Df' },
    response: { alreadyVerified: true },
  },
  'POST /api/v1/auth/verify-email/resend': {
    description: 'Sends the verification e-mail again (rate limited per address).',
    response: {},
  },
  'POST /api/v1/auth/password-reset': {
    description:
      'Sends a password reset link to the address if an account has it. The answer is the same either way, so it tells no one which addresses have accounts.',
    request: { email: 'owner@example.com' },
    response: {},
  },
  'POST /api/v1/auth/password-reset/confirm': {
    description: 'Sets a new password with the token from the reset e-mail, and ends every session of the account.',
    request: { token: 'wpr_7Yu2Ii5Oo8Pp1Aa4Ss7Dd0Ff3Gg6Hh9Jj2Kk5Ll', password: 'a new long passphrase' },
    response: { user },
  },
  'GET /api/v1/auth/sessions': {
    description: 'Your signed-in sessions, most recently used first; the current one is marked.',
    response: {
      sessions: [
        {
          id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
          createdAt: CREATED_AT,
          lastUsedAt: '2026-11-26T10:12:00.000Z',
          userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15',
          current: true,
        },
      ],
    },
  },
  'DELETE /api/v1/auth/sessions': { description: 'Signs out every session but the current one.' },
  'DELETE /api/v1/auth/sessions/{id}': { description: 'Signs out one session.' },
  'POST /api/v1/auth/tokens': {
    description:
      'Creates a personal access token for scripts and CI: `Authorization: Bearer wpt_…` acts as you on every /apps/** route (never on /auth/**). The token itself is shown only in this answer.',
    request: { name: 'CI pipeline' },
    response: {
      token: {
        id: 'a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d',
        name: 'CI pipeline',
        createdAt: CREATED_AT,
        lastUsedAt: null,
      },
      secret: 'wpt_8Hq2Lm5Xv0Nc3Bz7Kd1Rs9Tf4Wy6Pj2Ue5Gi8Oa0Mb',
    },
  },
  'GET /api/v1/auth/tokens': {
    description: 'Your personal access tokens with when each was last used, never the tokens themselves.',
    response: {
      tokens: [
        {
          id: 'a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d',
          name: 'CI pipeline',
          createdAt: CREATED_AT,
          lastUsedAt: '2026-11-26T10:12:00.000Z',
        },
      ],
    },
  },
  'DELETE /api/v1/auth/tokens/{id}': {
    description: 'Revokes a personal access token: every API instance refuses it from the next request on.',
  },
  'GET /api/v1/auth/audit-log': {
    description:
      'Your account’s own audit log: sign-ins, password resets and changes, two-factor changes, access tokens made and revoked, and an operator’s changes to your account.',
    response: {
      entries: [
        {
          id: '0193f1c2-7a4e-7b8c-9d0e-1f2a3b4c5d6f',
          at: CREATED_AT,
          actor: { type: 'user', id: user.id, email: user.email },
          action: 'session.created',
          target: { type: 'session', id: null },
          details: {},
          ip: '203.0.113.7',
        },
      ],
      nextCursor: null,
    },
  },
  'GET /api/v1/apps/{appId}/audit-log': {
    description:
      'Who changed what in the app, newest first: keys created and revoked, settings, VAPID key rotations, webhooks, and an operator’s changes to the account.',
    response: {
      entries: [
        {
          id: '0193f1c2-7a4e-7b8c-9d0e-1f2a3b4c5d6e',
          at: CREATED_AT,
          actor: { type: 'user', id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f', email: 'dev@example.com' },
          action: 'key.revoked',
          target: { type: 'key', id: 'd1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a' },
          details: { name: 'Production server', scope: 'notify' },
          ip: '203.0.113.7',
        },
      ],
      nextCursor: null,
    },
  },
  'GET /api/v1/apps/{appId}/members': {
    description:
      'The app’s people: its owner (role `owner`) and its members with their roles, and the invitations not yet accepted. Any member may read it.',
    response: {
      members: [
        { userId: user.id, email: 'owner@example.com', role: 'owner', createdAt: CREATED_AT },
        { userId: MEMBER_ID, email: 'dev@example.com', role: 'editor', createdAt: CREATED_AT },
      ],
      invitations: [
        { id: INVITATION_ID, email: 'manager@example.com', role: 'viewer', expiresAt: '2026-12-02T09:00:00.000Z' },
      ],
    },
  },
  'POST /api/v1/apps/{appId}/members': {
    description:
      'Invites someone by e-mail with a role (`admin`, `editor` or `viewer`); the owner or an admin may invite. The address gets a link to `/accept-invitation`, in its account’s language, that works once within 7 days.',
    request: { email: 'manager@example.com', role: 'viewer' },
    response: {
      invitation: {
        id: INVITATION_ID,
        email: 'manager@example.com',
        role: 'viewer',
        expiresAt: '2026-12-02T09:00:00.000Z',
      },
    },
  },
  'PATCH /api/v1/apps/{appId}/members/{userId}': {
    description: 'Gives a member another role (owner or admin). It holds from the member’s next request.',
    request: { role: 'admin' },
    response: { member: { userId: MEMBER_ID, email: 'dev@example.com', role: 'admin', createdAt: CREATED_AT } },
  },
  'DELETE /api/v1/apps/{appId}/members/{userId}': {
    description:
      'Removes a member (owner or admin), or lets any member leave by naming themselves. Their access ends at their next request, on every API instance.',
  },
  'POST /api/v1/invitations/accept': {
    description:
      'Accepts an invitation with the token of its link. The signed-in account’s e-mail must be verified and be the invited address. Answers the app, with the role it now has on it.',
    request: { token: 'wpi_3Jk8Lm1Nb4Vc7Xz0As3Df6Gh9Qw2Er5Ty8Ui1Op' },
    response: { app: { ...app, role: 'viewer' } },
  },
  'GET /api/v1/auth/github': { description: 'Starts "Sign in with GitHub": redirects to GitHub’s authorize page.' },
  'GET /api/v1/auth/github/callback': {
    description:
      'Where GitHub sends the browser back: signs in (creating the account, or linking one whose e-mail was verified) and redirects to the dashboard.',
  },
  'POST /api/v1/plan-requests': {
    description: '',
    request: { plan: 'pro', message: 'We go live next month and need Pro.' },
    response: { planRequest, operatorEmailed: true },
  },
  'GET /api/v1/plan-requests': {
    description: 'Your plan requests and what became of them, newest first.',
    response: { planRequests: [planRequest] },
  },
  // The operator console (users with the operator role).
  'GET /api/v1/operator/tenants': {
    description: '',
    response: { tenants: [tenant], nextCursor: null },
  },
  'PATCH /api/v1/operator/tenants/{userId}/plan': {
    description: 'Moves an account to another plan; its limits apply from the next request.',
    request: { plan: 'pro' },
    response: { tenant },
  },
  'PUT /api/v1/operator/tenants/{userId}/suspension': {
    description: '',
    response: { tenant: { ...tenant, suspended: true, suspendedAt: '2026-11-26T10:12:00.000Z' } },
  },
  'DELETE /api/v1/operator/tenants/{userId}/suspension': {
    description: 'Resumes a suspended account: its keys and sessions work again, as they were.',
    response: { tenant },
  },
  'GET /api/v1/operator/plan-requests': {
    description: '',
    response: { planRequests: [{ ...planRequest, userId: user.id, email: user.email, currentPlan: 'free' }] },
  },
  'POST /api/v1/operator/plan-requests/{requestId}/grant': {
    description: 'Grants an open plan request: the account moves to the plan asked for and the request is closed.',
    response: {
      planRequest: {
        ...planRequest,
        status: 'granted',
        resolvedAt: '2026-11-26T10:12:00.000Z',
        userId: user.id,
        email: user.email,
        currentPlan: 'pro',
      },
      tenant,
    },
  },
  // Segments
  'POST /api/v1/apps/{appId}/segments': {
    description:
      'Saves a segment: a boolean expression over the app’s active subscriptions (tags, uids, language, time zone, how recently they subscribed; and/or/not at most 5 levels deep, at most 50 leaves). Send to it with `segmentId`; a send copies the expression, so deleting the segment later changes no accepted send.',
    request: {
      name: 'Pro users outside the US',
      segment: { and: [{ tag: 'plan', equals: 'pro' }, { not: { tag: 'country', equals: 'US' } }] },
    },
    response: {
      segment: {
        id: NOTIFICATION_ID,
        name: 'Pro users outside the US',
        segment: { and: [{ tag: 'plan', equals: 'pro' }, { not: { tag: 'country', equals: 'US' } }] },
        createdAt: CREATED_AT,
      },
    },
  },
  'GET /api/v1/apps/{appId}/segments': {
    description: 'The app’s saved segments, each with `count`: the active subscriptions it matches now.',
    response: {
      segments: [
        {
          id: NOTIFICATION_ID,
          name: 'Japanese speakers',
          segment: { language: 'ja' },
          createdAt: CREATED_AT,
          count: 4210,
        },
      ],
    },
  },
  'PATCH /api/v1/apps/{appId}/segments/{segmentId}': {
    description:
      'Renames a saved segment, replaces its expression, or both. Its id stays, so later sends by `segmentId` get the new conditions; sends already accepted keep the audience they were given. Recorded in the app’s audit log as `segment.updated`.',
    request: { name: 'Pro users in Japan', segment: { and: [{ tag: 'plan', equals: 'pro' }, { language: 'ja' }] } },
    response: {
      segment: {
        id: NOTIFICATION_ID,
        name: 'Pro users in Japan',
        segment: { and: [{ tag: 'plan', equals: 'pro' }, { language: 'ja' }] },
        createdAt: CREATED_AT,
      },
    },
  },
  'DELETE /api/v1/apps/{appId}/segments/{segmentId}': {
    description: 'Deletes a saved segment. Sends already accepted to it keep their audience.',
  },
  'POST /api/v1/apps/{appId}/segments/count': {
    description: 'Counts the active subscriptions a segment matches now: the `targets` a send to it would have.',
    request: { segment: { or: [{ language: 'ja' }, { timeZone: 'Asia/Tokyo' }] } },
    response: { count: 4210 },
  },
  // Operations whose route gives its own description still get an example here.
  'POST /api/v1/auth/register': {
    description: '',
    request: { email: 'owner@example.com', password: 'correct horse battery staple', language: 'ja' },
    response: { user: { ...user, emailVerified: false }, token: 'wps_8Hq2Lm5Xc0Vb7Nz3Kd9Fj1Ws6Pt4Ry2Ue8Io0Aa' },
  },
  'PATCH /api/v1/apps/{appId}': {
    description: '',
    request: {
      allowedOrigins: ['https://www.example.com'],
      pushFormat: 'declarative',
      defaultUrl: 'https://www.example.com/',
    },
    response: { app },
  },
  'POST /api/v1/apps/{appId}/notifications': {
    description: '',
    request: { title: 'Hello', body: 'A first notification from the dashboard.' },
    response: { notification: { id: NOTIFICATION_ID, status: 'queued', targets: 3 } },
  },
  'PUT /api/v1/apps/{appId}/webhook': {
    description: '',
    request: { url: 'https://example.com/webhooks/push', events: ['notification.completed', 'subscription.expired'] },
    response: { webhook },
  },
  'GET /api/v1/apps/{appId}/notifications/{id}': {
    description:
      'One send of the app, for the dashboard’s notification page: the same object as GET /notifications/{id}.',
    response: { notification },
  },
  'POST /api/v1/apps/{appId}/identity-secret': {
    description: '',
    response: { secret: 'wpi_Zr4Tq9Lm2Xc7Vb0Nk5Hs8Jd3Fg6Pa1Wy' },
  },
  'POST /api/v1/apps/{appId}/vapid-key/rotate': {
    description: '',
    response: {
      app: {
        ...app,
        vapidPublicKey: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
      },
    },
  },
};

/** Tags in the order a customer meets them: sending first, accounts last. */
export const tags = [
  { name: 'sending', description: 'Send notifications from your server with an API key, and follow them.' },
  { name: 'subscriptions', description: 'What browsers call (through the web SDK) with a `subscribe_only` key.' },
  { name: 'engagement', description: 'Shown and clicked notifications, as browsers report them.' },
  { name: 'notifications', description: 'An app’s sends, from the dashboard.' },
  { name: 'subscribers', description: 'An app’s subscriptions, from the dashboard.' },
  { name: 'segments', description: 'Saved audiences of an app, with their live counts.' },
  { name: 'apps', description: 'Your apps: VAPID keys, allowed origins, push format, identity secret, usage.' },
  { name: 'api keys', description: 'The keys your servers and pages use.' },
  { name: 'members', description: 'The people of an app and their roles: invitations, roles, leaving.' },
  { name: 'webhooks', description: 'Events sent to your server, signed (Standard Webhooks).' },
  { name: 'plans', description: 'Plans and their limits.' },
  { name: 'accounts', description: 'Your account: plan requests to the operator.' },
  { name: 'auth', description: 'Accounts and sessions (the dashboard).' },
  { name: 'audit log', description: 'Who changed what: an app’s log and your account’s own.' },
  { name: 'operator', description: 'The operator console: every account, plans, suspension, plan requests.' },
];
