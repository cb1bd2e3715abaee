/**
 * The one error catalogue.
 * Each code is defined once: HTTP status, Japanese message, and whether the body carries
 * `upgrade_url`. Routes throw `AppError`s built from it; the API's error handler renders them.
 */
export interface ErrorDefinition {
  readonly status: number;
  readonly message: string;
  readonly upgradeUrl: boolean;
}

const define = (status: number, message: string, upgradeUrl = false): ErrorDefinition => ({
  status,
  message,
  upgradeUrl,
});

export const errorCatalogue = {
  // 400 — the request itself is wrong
  MISSING_FIELDS: define(400, '必須フィールドが不足しています'),
  INVALID_URL: define(400, 'URL は https:// で始まる必要があります'),
  INVALID_ENDPOINT: define(400, 'エンドポイントの形式が正しくありません'),
  TOO_MANY_ENDPOINTS: define(400, 'エンドポイントは最大 100 件までです'),
  INVALID_EMAIL: define(400, 'メールアドレスの形式が正しくありません'),
  INVALID_INPUT: define(400, '入力内容が正しくありません'),
  INVALID_SCOPE: define(400, 'スコープが正しくありません'),
  MISSING_CODE: define(400, '認可コードがありません'),
  INVALID_TOKEN: define(400, 'トークンが無効か、使用済みか、有効期限が切れています'),

  // 401 — who are you?
  UNAUTHORIZED: define(401, '認証ヘッダーがないか、形式が正しくありません'),
  INVALID_API_KEY: define(401, 'API キーが無効です'),
  INVALID_SESSION: define(401, 'セッションが無効です'),
  INVALID_CREDENTIALS: define(401, 'メールアドレスまたはパスワードが正しくありません'),
  TOTP_REQUIRED: define(401, '2 段階認証のコード (totp) または回復コード (recoveryCode) が必要です'),

  // 403 — not allowed
  INSUFFICIENT_SCOPE: define(403, 'API キーのスコープが不足しています'),
  APP_MISMATCH: define(403, 'API キーはこのアプリのものではありません'),
  PLAN_LIMIT_EXCEEDED: define(403, 'ご利用のプランで作成できるアプリの上限に達しました', true),
  INVALID_STATE: define(403, 'OAuth の state が一致しません'),
  ORIGIN_NOT_ALLOWED: define(403, 'このオリジンからのリクエストは許可されていません'),
  INVALID_UID_SIGNATURE: define(403, 'uid の署名 (uidSignature) がないか、正しくありません'),
  FORBIDDEN: define(403, 'この操作を行う権限がありません'),
  ACCOUNT_SUSPENDED: define(403, 'アカウントが停止されているため、送信は中止されました'),

  // 404 / 409 / 410 / 413
  NOT_FOUND: define(404, 'リソースが見つかりません'),
  EMAIL_IN_USE: define(409, 'このメールアドレスは既に登録されています'),
  NOT_CANCELABLE: define(409, 'この通知は予約中ではないため取り消せません'),
  SUBSCRIPTION_EXPIRED: define(410, '購読の有効期限が切れています'),
  PAYLOAD_TOO_LARGE: define(413, 'ペイロードが 3,072 バイトを超えています'),

  // 429 — slow down
  MONTHLY_LIMIT_EXCEEDED: define(429, '今月の送信数がプランの上限に達しました', true),
  SUBSCRIBER_LIMIT_EXCEEDED: define(429, '購読者数がプランの上限に達しました', true),
  RATE_LIMITED: define(429, 'リクエストが多すぎます。Retry-After ヘッダーの秒数だけ待ってから再試行してください'),

  // 5xx — our side or upstream
  INTERNAL_ERROR: define(500, '内部エラーが発生しました'),
  GITHUB_AUTH_FAILED: define(502, 'GitHub との認証に失敗しました'),
  PUSH_FAILED: define(502, 'プッシュ通知の送信に失敗しました'),
  OAUTH_NOT_CONFIGURED: define(503, 'GitHub OAuth が設定されていません'),
  CONFIG_ERROR: define(503, 'サーバーの設定に誤りがあります'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * More precise messages for a rule within a code, when the code alone does not say which rule a
 * request broke. The code (what clients branch on) and the status stay the catalogue's; only the
 * message is sharper. A route throws `new AppError(code, { detail })`.
 */
export const errorDetails = {
  PASSWORD_TOO_SHORT: {
    code: 'INVALID_INPUT',
    message: 'パスワードが短すぎます (too short): 8 文字以上にしてください',
  },
  PASSWORD_TOO_LONG: {
    code: 'INVALID_INPUT',
    message: 'パスワードが長すぎます (too long): 128 文字以下にしてください',
  },
  PASSWORD_TOO_COMMON: {
    code: 'INVALID_INPUT',
    message: 'よく使われているパスワードです (too common): 推測されにくいパスワードにしてください',
  },
  LIMIT_NOT_COUNTABLE: {
    code: 'RATE_LIMITED',
    message:
      '現在リクエスト数を確認できないため受け付けられません。Retry-After ヘッダーの秒数だけ待ってから再試行してください',
  },
  TAGS_SIGNATURE_INVALID: {
    code: 'INVALID_UID_SIGNATURE',
    message: 'tags の署名 (tagsSignature) がないか、正しくありません',
  },
  SIGNATURE_EXPIRED: {
    code: 'INVALID_UID_SIGNATURE',
    message: '署名の有効期限 (signatureExpires) がないか、過ぎています',
  },
  NOT_THE_DASHBOARD_ORIGIN: {
    code: 'ORIGIN_NOT_ALLOWED',
    message:
      'このページのアドレスはダッシュボードのアドレス (PUBLIC_URL) と異なるため、変更できません。PUBLIC_URL のアドレスで開き直してください',
  },
  PLAN_NOT_AN_UPGRADE: {
    code: 'INVALID_INPUT',
    message: '現在のプランより上のプランだけを依頼できます。下のプランへの変更は運営者にご連絡ください',
  },
  TOO_MANY_API_KEYS: {
    code: 'INVALID_INPUT',
    message: 'このアプリの API キーは上限の数に達しています。使っていないキーを削除してください',
  },
  TOO_MANY_ACCESS_TOKENS: {
    code: 'INVALID_INPUT',
    message: 'アクセストークンは上限の数に達しています。使っていないトークンを削除してください',
  },
  TOTP_ALREADY_ENABLED: {
    code: 'INVALID_INPUT',
    message: '2 段階認証は既に有効です。設定し直すには、先に無効にしてください',
  },
  TOTP_NOT_ENABLED: {
    code: 'INVALID_INPUT',
    message: '2 段階認証は有効になっていません',
  },
  ALREADY_A_MEMBER: {
    code: 'INVALID_INPUT',
    message: 'このメールアドレスの方は、すでにこのアプリのオーナーかメンバーです',
  },
} as const satisfies Record<string, { code: ErrorCode; message: string }>;

export type ErrorDetail = keyof typeof errorDetails;
