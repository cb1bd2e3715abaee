import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface SdkRoutesOptions {
  /** Where the built SDK lives; default: `dist/` of the `@webpush/web-sdk` package. */
  distDir?: string;
  /** Development (`pnpm dev` watches the SDK): read the files on every request, so rebuilds show at once. */
  rereadEachRequest?: boolean;
}

interface Asset {
  body: Buffer;
  etag: string;
}

/** The SDK, its worker and its optional UI parts (each a script that adds `WebPush.<part>`). */
const SDK_FILES = ['web-sdk.js', 'sw.js', 'web-sdk-prompt.js', 'web-sdk-bell.js', 'web-sdk-categories.js'] as const;
type SdkFile = (typeof SDK_FILES)[number];

/** Sites load these on every page view; five minutes keeps the load low and an update quick to reach them. */
const CACHE_CONTROL = 'public, max-age=300';

export function defaultSdkDistDir(): string {
  const packageJson = createRequire(import.meta.url).resolve('@webpush/web-sdk/package.json');
  return join(dirname(packageJson), 'dist');
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

function readAsset(distDir: string, name: SdkFile): Asset | null {
  try {
    const body = readFileSync(join(distDir, name));
    return { body, etag: etagOf(body) };
  } catch {
    return null;
  }
}

function matchesEtag(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === etag || tag === '*';
  });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset | null): FastifyReply {
  if (!asset) throw new AppError('CONFIG_ERROR');
  reply
    .header('cache-control', CACHE_CONTROL)
    .header('etag', asset.etag)
    // Public files: lets a site pin them with Subresource Integrity (`crossorigin` needs CORS).
    .header('access-control-allow-origin', '*');
  if (matchesEtag(request, asset.etag)) return reply.code(304).send();
  return reply.type('text/javascript; charset=utf-8').send(asset.body);
}

/**
 * The browser SDK and its service worker, read once at startup from the built package.
 * Outside `/api/v1`: these are files, not API.
 */
export default async function sdkRoutes(app: FastifyInstance, options: SdkRoutesOptions) {
  const distDir = options.distDir ?? defaultSdkDistDir();
  const assets = Object.fromEntries(SDK_FILES.map((name) => [name, readAsset(distDir, name)])) as Record<
    SdkFile,
    Asset | null
  >;
  const missing = SDK_FILES.filter((name) => !assets[name]);
  const current = (name: SdkFile) => (options.rereadEachRequest ? readAsset(distDir, name) : assets[name]);
  if (missing.length > 0 && !options.rereadEachRequest) {
    app.log.error(
      { distDir, missing },
      'the web SDK is not built: /sdk/* answers 503 CONFIG_ERROR until `pnpm build` has run',
    );
  }

  for (const name of SDK_FILES.filter((file) => file !== 'sw.js')) {
    app.get(`/sdk/${name}`, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, current(name)));
  }

  app.get('/sdk/sw.js', { schema: { hide: true } }, (request, reply) => {
    // Lets a site register this file with a wider scope than /sdk/ when it serves it itself via a proxy.
    reply.header('service-worker-allowed', '/');
    return sendAsset(request, reply, current('sw.js'));
  });
}
