/**
 * The push-service host allowlist (docs/configuration.md, `PUSH_SERVICE_HOSTS`). An entry is a host name, optionally
 * `*.`-prefixed (any sub-domain, not the bare domain) and optionally `:port`; an IPv6 address is
 * written in brackets, `[::1]:8443`, as in a URL. An entry without a
 * port matches only 443, so a customer can never steer a push to another port of an allowed host.
 */
export interface PushHostRule {
  readonly host: string;
  readonly wildcard: boolean;
  readonly port: number;
}

/** An IPv6 literal as URL parsing writes it (compressed, lower-case), without brackets. */
function canonicalIpv6(address: string): string {
  try {
    return new URL(`https://[${address}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return address;
  }
}

/** One entry: `host`, `host:port`, `*.host[:port]`, `[ipv6]`, `[ipv6]:port` (or a bare IPv6 literal). */
function parseEntry(entry: string): PushHostRule {
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) {
    return { host: canonicalIpv6(bracketed[1] ?? ''), wildcard: false, port: Number(bracketed[2] ?? 443) };
  }
  if ((entry.match(/:/g) ?? []).length > 1) return { host: canonicalIpv6(entry), wildcard: false, port: 443 };
  const wildcard = entry.startsWith('*.');
  const bare = wildcard ? entry.slice(2) : entry;
  const portMatch = /^(.*):(\d{1,5})$/.exec(bare);
  const host = portMatch ? (portMatch[1] ?? bare) : bare;
  const port = portMatch ? Number(portMatch[2]) : 443;
  return { host, wildcard, port };
}

export function parsePushHosts(list: string): PushHostRule[] {
  return list
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0)
    .map(parseEntry);
}

/** `hostname` lower-case without brackets, `port` the URL's effective port. */
export function isAllowedPushHost(rules: readonly PushHostRule[], hostname: string, port: number): boolean {
  const name = hostname.toLowerCase();
  return rules.some((rule) => {
    if (rule.port !== port) return false;
    return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
  });
}
