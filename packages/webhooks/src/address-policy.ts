import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach: loopback, private, link-local (incl. the cloud metadata
 * address 169.254.169.254), CGNAT, multicast, unspecified, broadcast, documentation and benchmark
 * ranges, for IPv4 and IPv6. IPv6 forms that embed an IPv4 address (IPv4-mapped, IPv4-compatible,
 * NAT64, 6to4, Teredo) are refused as a whole: a real webhook receiver is never reached through
 * them, and each could carry a refused IPv4 address past an IPv4-only check.
 */
// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules as IPv4-mapped, so one
// list holding ::ffff:0:0/96 would refuse every IPv4 address.
const refusedIpv4 = new BlockList();
const refusedIpv6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refusedIpv4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d).
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo (embeds an IPv4 address) and documentation.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refusedIpv6.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is one a webhook may connect to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !refusedIpv4.check(address, 'ipv4') : !refusedIpv6.check(address, 'ipv6');
}

/** `[::1]` → `::1`; a URL's hostname keeps the brackets of an IPv6 literal. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Parses `WEBHOOK_ALLOWED_HOSTS`-style rules: `host` (any port) or `host:port`, lower-cased. */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowedHosts.some((rule) => rule === host || rule === `${host}:${port}`);
}
