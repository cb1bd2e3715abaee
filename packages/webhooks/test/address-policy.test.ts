import t from 'tap';
import { checkWebhookUrl, checkWebhookUrlSyntax, isPublicAddress } from '../src/index.js';

t.test('public addresses pass; loopback, private, link-local, CGNAT, multicast and metadata do not', async (t) => {
  for (const address of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001:80b::200e']) {
    t.ok(isPublicAddress(address), `${address} is public`);
  }
  for (const address of [
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:8.8.8.8', // every IPv4-mapped form: no receiver is reached that way
    '::7f00:1', // IPv4-compatible
    '64:ff9b::7f00:1', // NAT64
    '2002:7f00:1::1', // 6to4
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    'not an address',
  ]) {
    t.notOk(isPublicAddress(address), `${address} is refused`);
  }
});

t.test('URL rules: https only, no credentials, literal addresses checked, exempt hosts may use http', async (t) => {
  const policy = { allowedHosts: ['receiver.test:8443', 'localhost'] };
  t.match(checkWebhookUrlSyntax('https://93.184.215.14/x', policy), { ok: true, exempt: false });
  t.match(checkWebhookUrlSyntax('http://93.184.215.14/x', policy), { ok: false, reason: 'not_https' });
  t.match(checkWebhookUrlSyntax('https://u:p@93.184.215.14/x', policy), { ok: false, reason: 'invalid_url' });
  t.match(checkWebhookUrlSyntax('https://[::ffff:127.0.0.1]/', policy), { ok: false, reason: 'refused_address' });
  t.match(checkWebhookUrlSyntax('https://0x7f.1/', policy), { ok: false, reason: 'refused_address' });
  t.match(checkWebhookUrlSyntax('http://receiver.test:8443/x', policy), { ok: true, exempt: true });
  t.match(checkWebhookUrlSyntax('http://receiver.test:9000/x', policy), { ok: false, reason: 'not_https' });
  t.match(checkWebhookUrlSyntax('https://LOCALHOST:1234/x', policy), { ok: true, exempt: true }, 'any port');
  t.match(await checkWebhookUrl('https://localhost/x', { allowedHosts: [] }), { ok: false, reason: 'refused_address' });
  t.match(await checkWebhookUrl('https://localhost/x', policy), { ok: true, exempt: true });
});
