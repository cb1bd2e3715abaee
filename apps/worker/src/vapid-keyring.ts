import type { VapidCredentials } from '@webpush/push';
import { openSecret, vapidKeyContext } from '@webpush/secrets';

export interface AppVapidKeys {
  id: string;
  vapidPublicKey: string;
  vapidPrivateKeySealed: string;
}

export class VapidKeyUnavailableError extends Error {
  override readonly name = 'VapidKeyUnavailableError';
}

/**
 * Opens each app's sealed VAPID private key once and keeps it, so a chunk does not pay for AES-GCM
 * and the push sender can reuse its signed JWTs (keyed by `cacheKey`) across chunks.
 */
export class VapidKeyring {
  readonly #opened = new Map<string, { sealed: string; credentials: VapidCredentials }>();

  constructor(
    private readonly encryptionKey: Buffer | null,
    private readonly subject: string,
  ) {}

  credentialsFor(app: AppVapidKeys): VapidCredentials {
    const cached = this.#opened.get(app.id);
    if (cached && cached.sealed === app.vapidPrivateKeySealed) return cached.credentials;
    if (!this.encryptionKey)
      throw new VapidKeyUnavailableError('ENCRYPTION_KEY is not set: VAPID keys cannot be opened');
    let privateKey: string;
    try {
      privateKey = openSecret(this.encryptionKey, app.vapidPrivateKeySealed, vapidKeyContext(app.id));
    } catch (error) {
      throw new VapidKeyUnavailableError(`the VAPID key of app ${app.id} does not open under ENCRYPTION_KEY`, {
        cause: error,
      });
    }
    const credentials: VapidCredentials = {
      cacheKey: `${app.id}:${app.vapidPublicKey}`,
      publicKey: app.vapidPublicKey,
      privateKey,
      subject: this.subject,
    };
    this.#opened.set(app.id, { sealed: app.vapidPrivateKeySealed, credentials });
    return credentials;
  }
}
