import { createCipheriv, randomBytes } from 'node:crypto';
import { ConfigValidationError, loadConfig } from '@webpush/config';
import { identitySecretContext, openSecret, sealSecret, vapidKeyContext, webhookSecretContext } from '@webpush/secrets';
import t from 'tap';

const key = randomBytes(32);
const appId = '7d3f2c1a-0000-4000-8000-000000000001';

/** The legacy `v1` format: AES-256-GCM without additional data. */
function sealLegacy(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

t.test('v1 opens only for a VAPID private key', async (t) => {
  const legacy = sealLegacy('secret value');
  t.equal(openSecret(key, legacy, vapidKeyContext(appId)), 'secret value', 'a VAPID key written before v2');
  t.throws(() => openSecret(key, legacy, identitySecretContext(appId)), /unknown format/, 'not an identity secret');
  t.throws(() => openSecret(key, legacy, webhookSecretContext(appId)), /unknown format/, 'not a webhook secret');
});

t.test('the GCM tag is 16 bytes: a truncated tag does not open', async (t) => {
  const context = identitySecretContext(appId);
  const sealed = sealSecret(key, 'secret value', context);
  t.equal(openSecret(key, sealed, context), 'secret value');
  const [version, iv, tag, ciphertext] = sealed.split('.');
  t.equal(Buffer.from(tag ?? '', 'base64url').length, 16, 'sealed with a 16-byte tag');
  for (const length of [4, 8, 12, 15]) {
    const truncated = [
      version,
      iv,
      Buffer.from(tag ?? '', 'base64url')
        .subarray(0, length)
        .toString('base64url'),
      ciphertext,
    ].join('.');
    t.throws(() => openSecret(key, truncated, context), `a ${length}-byte tag is refused`);
  }
  const shortIv = [version, Buffer.alloc(8).toString('base64url'), tag, ciphertext].join('.');
  t.throws(() => openSecret(key, shortIv, context), 'an IV of other than 12 bytes is refused');
});

t.test('short secrets are a configuration error at start-up in production only', async (t) => {
  const production = { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525' };
  t.throws(
    () => loadConfig({ ...production, API_KEY_PEPPER: 'short-pepper' }),
    ConfigValidationError,
    'a short API_KEY_PEPPER',
  );
  t.throws(
    () => loadConfig({ ...production, API_KEY_PEPPER: 'p'.repeat(32), OPS_USERNAME: 'ops', OPS_PASSWORD: 'hunter2' }),
    /OPS_PASSWORD must be at least 16 characters/,
    'a short OPS_PASSWORD',
  );
  t.ok(
    loadConfig({ ...production, API_KEY_PEPPER: 'p'.repeat(32), OPS_USERNAME: 'ops', OPS_PASSWORD: 'o'.repeat(16) }),
  );
  t.ok(loadConfig({ API_KEY_PEPPER: 'short', OPS_PASSWORD: 'short' }), 'development accepts them');
  t.ok(loadConfig({ ...production }), 'a missing pepper still starts (503 CONFIG_ERROR on use)');
});
