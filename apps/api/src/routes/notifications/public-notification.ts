// The serializer lives in @webpush/db so the worker's webhooks send the very same object.
export { publicNotification } from '@webpush/db';
