import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Language, requestLanguage } from '../../languages.js';
import { CONTENT_SECURITY_POLICY, isBrowserNavigation } from './navigation.js';

/** Vite in middleware mode, as `@webpush/dashboard/dev-server` builds it for `pnpm dev`. */
export interface DashboardDevServer {
  /** Connect-style middleware: answers Vite's module and HMR requests, calls `next` for anything else. */
  middlewares(request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void): void;
  /** `index.html` as Vite transforms it for `url` (HMR client, React refresh preamble). */
  html(url: string): Promise<string>;
  close(): Promise<void>;
}

export interface DashboardRoutesOptions {
  /** The built dashboard; default: `apps/dashboard/dist` of this repository. */
  distDir?: string;
  /**
   * Development: serve the dashboard from source through Vite instead of `distDir`. Called once,
   * when the API listens (or at the first dashboard request, whichever comes first): importing and
   * creating Vite takes most of a second the API's own start need not wait for.
   */
  devServer?: () => Promise<DashboardDevServer>;
}

/** apps/api/{src,dist}/site/dashboard → apps/dashboard/dist, from the sources and from the build alike. */
export const defaultDashboardDistDir = (): string =>
  fileURLToPath(new URL('../../../../dashboard/dist', import.meta.url));

/** Hashed file names: a file's content never changes under its name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** URL prefixes Vite's dev server answers (modules, dependencies, HMR client). */
const VITE_PREFIXES = ['/@vite/', '/@react-refresh', '/@id/', '/@fs/', '/src/', '/node_modules/'];

type PageName = 'index' | 'pricing';

interface BuiltDashboard {
  /** Each page in each language (dist/index.html, dist/index.ja.html, …). */
  pages: Record<PageName, Record<Language, Buffer>>;
  assets: Map<string, Buffer>;
}

/** `<html lang>` of a page as Vite's dev server gives it (one index.html for both languages). */
const withLanguage = (html: string, language: Language) =>
  html.replace(/<html lang="[^"]*">/, `<html lang="${language}">`);

/** dist/<name>.ja.html, or the English page with its `<html lang>` changed (a dist built before it existed). */
function readPage(distDir: string, name: PageName): Record<Language, Buffer> {
  const en = readFileSync(join(distDir, `${name}.html`));
  let ja: Buffer;
  try {
    ja = readFileSync(join(distDir, `${name}.ja.html`));
  } catch {
    ja = Buffer.from(withLanguage(en.toString('utf8'), 'ja'));
  }
  return { en, ja };
}

function readBuilt(distDir: string): BuiltDashboard | null {
  try {
    const assetsDir = join(distDir, 'assets');
    const assets = new Map(readdirSync(assetsDir).map((name) => [name, readFileSync(join(assetsDir, name))]));
    return { pages: { index: readPage(distDir, 'index'), pricing: readPage(distDir, 'pricing') }, assets };
  } catch {
    return null;
  }
}

/**
 * A page in `language`: chosen per request from the wp_lang cookie or Accept-Language, so caches
 * are told the answer varies with the latter (and `no-cache` revalidates every time anyway).
 */
const sendPage = (reply: FastifyReply, html: Buffer | string, language: Language, csp: boolean) => {
  if (csp) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  return reply
    .header('vary', 'Accept-Language')
    .header('content-language', language)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(html);
};

/**
 * The customer dashboard (apps/dashboard): `/` and `/pricing`, the hashed assets under `/assets/`,
 * and every other browser navigation (GET with Accept: text/html outside the API's paths) answered
 * with the single-page app, which routes on the client. Files are read once at startup, like /sdk.
 */
export default async function dashboardRoutes(app: FastifyInstance, options: DashboardRoutesOptions) {
  let page: (request: FastifyRequest, reply: FastifyReply, name: PageName) => Promise<FastifyReply>;

  if (options.devServer) {
    const createDevServer = options.devServer;
    let created: Promise<DashboardDevServer> | undefined;
    const devServer = () => {
      created ??= createDevServer();
      return created;
    };
    app.addHook('onListen', async () => {
      // A failure is logged here and answered (500) to each dashboard request; the API keeps serving.
      devServer().catch((error: unknown) =>
        app.log.error({ err: error }, "the dashboard's dev server (Vite) could not start"),
      );
    });
    app.addHook('onClose', async () => {
      const running = await created?.catch(() => undefined);
      await running?.close();
    });
    // Vite answers its own module and HMR URLs on the raw request; Fastify routes everything else.
    const viaVite = async (request: FastifyRequest, reply: FastifyReply) => {
      const vite = await devServer();
      reply.hijack();
      vite.middlewares(request.raw, reply.raw, () => {
        reply.raw.statusCode = 404;
        reply.raw.end();
      });
    };
    for (const prefix of VITE_PREFIXES) {
      app.get(prefix.endsWith('/') ? `${prefix}*` : prefix, { schema: { hide: true } }, viaVite);
    }
    // No CSP in development: React's refresh preamble is an inline script.
    page = async (request, reply) => {
      const language = requestLanguage(request);
      const html = await (await devServer()).html(request.url);
      return sendPage(reply, withLanguage(html, language), language, false);
    };
  } else {
    const distDir = options.distDir ?? defaultDashboardDistDir();
    const built = readBuilt(distDir);
    if (!built) {
      app.log.error(
        { distDir },
        'the dashboard is not built: / and /pricing answer 503 CONFIG_ERROR until `pnpm build` has run',
      );
    }
    page = async (request, reply, name) => {
      if (!built) throw new AppError('CONFIG_ERROR');
      const language = requestLanguage(request);
      return sendPage(reply, built.pages[name][language], language, true);
    };

    app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, (request, reply) => {
      const body = built?.assets.get(request.params.file);
      if (!body) throw new AppError('NOT_FOUND');
      return reply
        .header('cache-control', IMMUTABLE)
        .header('x-content-type-options', 'nosniff')
        .type(CONTENT_TYPES[extname(request.params.file)] ?? 'application/octet-stream')
        .send(body);
    });
  }

  app.get('/', { schema: { hide: true } }, (request, reply) => page(request, reply, 'index'));
  app.get('/pricing', { schema: { hide: true } }, (request, reply) => page(request, reply, 'pricing'));

  app.setPageFallback((request, reply) =>
    isBrowserNavigation(request.method, request.url, request.headers.accept) ? page(request, reply, 'index') : null,
  );
}
