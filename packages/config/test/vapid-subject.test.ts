import t from 'tap';
import { ConfigValidationError, loadConfig } from '../src/index.js';

t.test('VAPID_SUBJECT: set, or derived from PUBLIC_URL', async (t) => {
  t.equal(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).vapidSubject, 'mailto:admin@localhost');
  t.equal(loadConfig({ PUBLIC_URL: 'http://push.internal:8080/' }).vapidSubject, 'mailto:admin@push.internal');
  t.equal(loadConfig({ PUBLIC_URL: 'https://push.example.com/' }).vapidSubject, 'https://push.example.com');
  t.equal(
    loadConfig({ PUBLIC_URL: 'https://push.example.com', VAPID_SUBJECT: 'mailto:ops@example.com' }).vapidSubject,
    'mailto:ops@example.com',
  );
  t.throws(() => loadConfig({ VAPID_SUBJECT: 'ops@example.com' }), ConfigValidationError, 'neither mailto: nor https:');
});
