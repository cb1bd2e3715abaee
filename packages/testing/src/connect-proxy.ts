import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY / HTTP_PROXY. */
  readonly url: string;
  /** The `host:port` of every CONNECT it was asked for, in order (refused ones too). */
  readonly tunnels: string[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /**
   * `host:port` → a port on 127.0.0.1: a public name (a push service's `wns2-….notify.windows.com:443`,
   * a webhook receiver's `hooks.company.jp:443`) served by a stand-in on this machine.
   * `localhost:<port>` and `127.0.0.1:<port>` are tunnelled as they are. Anything else is refused
   * with 403 and never connected to: a test's traffic stays on loopback.
   */
  routes?: Readonly<Record<string, number>>;
}

/** A local HTTP CONNECT proxy (what HTTPS_PROXY points at in a company network), for tests. */
export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const routes = new Map(Object.entries(options.routes ?? {}).map(([name, port]) => [name.toLowerCase(), port]));
  const server = createServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = (request.url ?? '').toLowerCase();
    tunnels.push(target);
    sockets.add(client);
    client.on('error', () => {});
    client.once('close', () => sockets.delete(client));
    const [host = '', portText = '443'] = target.split(/:(?=\d+$)/);
    const routed = routes.get(target);
    const port = routed ?? (host === 'localhost' || host === '127.0.0.1' ? Number(portText) : null);
    if (port === null) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.once('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
