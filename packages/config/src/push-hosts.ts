/**
 * The push-service host allowlist (CONTRACT "Endpoints"). An entry is a host name, optionally
 * `*.`-prefixed (any sub-domain, not the bare domain) and optionally `:port`. An entry without a
 * port matches only 443, so a customer can never steer a push to another port of an allowed host.
 */
export interface PushHostRule {
  readonly host: string;
  readonly wildcard: boolean;
  readonly port: number;
}

export function parsePushHosts(list: string): PushHostRule[] {
  return list
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const wildcard = entry.startsWith('*.');
      const bare = wildcard ? entry.slice(2) : entry;
      const portMatch = /^(.*):(\d{1,5})$/.exec(bare);
      const host = portMatch ? (portMatch[1] ?? bare) : bare;
      const port = portMatch ? Number(portMatch[2]) : 443;
      return { host, wildcard, port };
    });
}

/** `hostname` lower-case without brackets, `port` the URL's effective port. */
export function isAllowedPushHost(rules: readonly PushHostRule[], hostname: string, port: number): boolean {
  const name = hostname.toLowerCase();
  return rules.some((rule) => {
    if (rule.port !== port) return false;
    return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
  });
}
