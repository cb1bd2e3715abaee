import { Resolver } from 'node:dns/promises';

/**
 * Webhook host names are resolved by c-ares (`dns.Resolver`), never by `dns.lookup`: `lookup` runs
 * `getaddrinfo` on libuv's thread pool, the 4 threads argon2 hashes passwords on, so a name whose
 * servers never answer would stall logins. c-ares runs on the event loop, with a timeout per query.
 * It does not read /etc/hosts; names under `localhost` are refused before any query (RFC 6761).
 */
export interface ResolverOptions {
  /** Name servers (`ip` or `ip:port`); empty: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** Each query's limit, per name server. */
  timeoutMs: number;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type NameResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export class LocalNameError extends Error {
  override readonly name = 'LocalNameError';
  readonly code = 'EREFUSEDADDRESS';
}

/** `localhost` and every name under it: loopback by definition, whatever a name server says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export function createNameResolver(options: ResolverOptions): NameResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
  return async (hostname) => {
    if (isLocalhostName(hostname)) throw new LocalNameError(`${hostname} is a local name`);
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    // Neither family resolved: report the more telling error (no data for one family is normal).
    const errors = [v4, v6].flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    throw errors.find((error) => (error as { code?: string }).code !== 'ENODATA') ?? errors[0];
  };
}
