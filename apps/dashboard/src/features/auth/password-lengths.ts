import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@webpush/plans';

/** The API's password lengths, as the values of the messages that state them ({min}, {max}). */
export const PASSWORD_LENGTHS = { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH };
