import type { VapidCredentials } from '@webpush/push';
import { openSecret, vapidKeyContext } from '@webpush/secrets';

/** One of an app's VAPID keys: the current one or a retired one, by the version subscriptions record. */
export interface VapidKeyOfApp {
  appId: string;
  version: number;
  publicKey: string;
  privateKeySealed: string;
}

export class VapidKeyUnavailableError extends Error {
  override readonly name = 'VapidKeyUnavailableError';
}

/**
 * Opens each VAPID private key once and keeps it, so a chunk does not pay for AES-GCM and the push
 * sender can reuse its signed JWTs (keyed by `cacheKey`, which names the key) across chunks. Keys
 * are kept per app and version: after a rotation the app's subscriptions made with the earlier key
 * are still signed with it, those made with the new one with the new one.
 */
export class VapidKeyring {
  readonly #opened = new Map<string, { sealed: string; credentials: VapidCredentials }>();

  constructor(
    private readonly encryptionKey: Buffer | null,
    private readonly subject: string,
  ) {}

  /** The credentials of a key opened before, if it was (a version's key never changes but by re-sealing). */
  cached(appId: string, version: number): VapidCredentials | undefined {
    return this.#opened.get(`${appId}:${version}`)?.credentials;
  }

  credentialsFor(key: VapidKeyOfApp): VapidCredentials {
    const name = `${key.appId}:${key.version}`;
    const cached = this.#opened.get(name);
    if (cached && cached.sealed === key.privateKeySealed) return cached.credentials;
    if (!this.encryptionKey)
      throw new VapidKeyUnavailableError('ENCRYPTION_KEY is not set: VAPID keys cannot be opened');
    let privateKey: string;
    try {
      privateKey = openSecret(this.encryptionKey, key.privateKeySealed, vapidKeyContext(key.appId));
    } catch (error) {
      throw new VapidKeyUnavailableError(`the VAPID key of app ${key.appId} does not open under ENCRYPTION_KEY`, {
        cause: error,
      });
    }
    const credentials: VapidCredentials = {
      cacheKey: `${key.appId}:${key.publicKey}`,
      publicKey: key.publicKey,
      privateKey,
      subject: this.subject,
    };
    this.#opened.set(name, { sealed: key.privateKeySealed, credentials });
    return credentials;
  }
}
