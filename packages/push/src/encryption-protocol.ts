import { AUTH_SECRET_LENGTH, P256_POINT_LENGTH } from './encryption.js';

/** One subscription's keys in a request: the 65-byte point, then the 16-byte auth secret. */
export const KEYS_LENGTH = P256_POINT_LENGTH + AUTH_SECRET_LENGTH;

export interface EncryptionRequest {
  id: number;
  /** The plaintext, the same for every subscription of the batch (or a template, with `links`). */
  payload: Uint8Array;
  /** `KEYS_LENGTH` bytes a subscription. */
  keys: Uint8Array;
  /**
   * When set, `payload` is a template: each subscription's click tokens are signed here and written
   * into it at `slots` (EncryptionPool.encrypt).
   */
  links?: {
    key: Uint8Array;
    notificationId: Uint8Array;
    /** 16 bytes a subscription, in the order of `keys`. */
    subscriptionIds: Uint8Array;
    /** Byte offset of each hole, and the link it holds. */
    slots: Int32Array;
    links: Int32Array;
  };
}

export interface EncryptionAnswer {
  id: number;
  /** Body i at `i × bodyLength`, `lengths[i]` bytes; −1 when its keys failed (the next entry of `errors`). */
  bodies: Uint8Array;
  bodyLength: number;
  lengths: Int32Array;
  errors: string[];
}
