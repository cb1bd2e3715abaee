import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for GitHub's OAuth web flow and the two REST calls the sign-in makes, answering
 * the way github.com does: the token endpoint says 200 with an `error` field for a bad code (not a
 * 4xx), answers JSON only when asked with `Accept: application/json`, takes the client credentials
 * in the form body, and a code works once. Point the API at it with `fakeGithub.env`.
 */

export interface FakeGithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

export interface FakeGithubUser {
  id: number;
  login: string;
  emails: FakeGithubEmail[];
}

export interface RecordedGithubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Which part of GitHub answers 500 until told otherwise. */
export type GithubOutage = 'token' | 'api';

export interface FakeGithubEnv {
  GITHUB_CLIENT_ID: string;
  GITHUB_CLIENT_SECRET: string;
  GITHUB_AUTHORIZE_URL: string;
  GITHUB_TOKEN_URL: string;
  GITHUB_API_URL: string;
}

export interface FakeGithub {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The configuration that points the service at this fake. */
  readonly env: FakeGithubEnv;
  /** Every request received, oldest first. */
  readonly requests: RecordedGithubRequest[];
  /** Registers (or replaces) a GitHub user. */
  addUser(user: FakeGithubUser): FakeGithubUser;
  /** Mints a one-time authorization code for the user, as GitHub does after the user approves. */
  issueCode(userId: number, options?: { redirectUri?: string; scope?: string }): string;
  /** The user the browser is signed in to GitHub as; GET /login/oauth/authorize approves for them. */
  signInAs(userId: number | null): void;
  /** Makes the token endpoint or the REST API answer 500 until `restore()`. */
  fail(part: GithubOutage): void;
  restore(): void;
  close(): Promise<void>;
}

export interface FakeGithubOptions {
  clientId?: string;
  clientSecret?: string;
}

interface IssuedCode {
  userId: number;
  redirectUri: string | undefined;
  scope: string;
}

const DEFAULT_SCOPE = 'read:user,user:email';
const DOCS = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** GitHub answers the token endpoint form-encoded unless the client asks for JSON. */
function sendTokenAnswer(response: ServerResponse, accept: string | undefined, body: Record<string, string>) {
  if (accept?.includes('application/json')) return sendJson(response, 200, body);
  response.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' });
  response.end(new URLSearchParams(body).toString());
}

const BEARER = /^(?:bearer|token) (\S+)$/i;

export async function startFakeGithub(options: FakeGithubOptions = {}): Promise<FakeGithub> {
  const clientId = options.clientId ?? `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(20).toString('hex');
  const users = new Map<number, FakeGithubUser>();
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, number>();
  const requests: RecordedGithubRequest[] = [];
  const outages = new Set<GithubOutage>();
  let browserUser: number | null = null;

  const issueCode = (userId: number, issue: { redirectUri?: string; scope?: string } = {}): string => {
    if (!users.has(userId)) throw new Error(`fake GitHub has no user ${userId}`);
    const code = randomBytes(10).toString('hex');
    codes.set(code, { userId, redirectUri: issue.redirectUri, scope: issue.scope ?? DEFAULT_SCOPE });
    return code;
  };

  function authorize(response: ServerResponse, query: URLSearchParams): void {
    const redirectUri = query.get('redirect_uri');
    if (query.get('client_id') !== clientId || !redirectUri) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Not Found');
      return;
    }
    if (browserUser === null) {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<title>Sign in to GitHub</title>');
      return;
    }
    const location = new URL(redirectUri);
    const scope = (query.get('scope') ?? '').split(/[ ,]+/).filter(Boolean).join(',');
    location.searchParams.set('code', issueCode(browserUser, { redirectUri, scope }));
    const state = query.get('state');
    if (state !== null) location.searchParams.set('state', state);
    response.writeHead(302, { location: location.toString() });
    response.end();
  }

  function exchangeCode(response: ServerResponse, accept: string | undefined, form: URLSearchParams) {
    if (outages.has('token')) return sendJson(response, 500, { message: 'Server Error' });
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return sendTokenAnswer(response, accept, {
        error: 'incorrect_client_credentials',
        error_description: 'The client_id and/or client_secret passed are incorrect.',
        error_uri: `${DOCS}#incorrect-client-credentials`,
      });
    }
    const code = form.get('code') ?? '';
    const issued = codes.get(code);
    if (!issued) {
      return sendTokenAnswer(response, accept, {
        error: 'bad_verification_code',
        error_description: 'The code passed is incorrect or expired.',
        error_uri: `${DOCS}#bad-verification-code`,
      });
    }
    const redirectUri = form.get('redirect_uri');
    if (issued.redirectUri !== undefined && redirectUri !== null && redirectUri !== issued.redirectUri) {
      return sendTokenAnswer(response, accept, {
        error: 'redirect_uri_mismatch',
        error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
        error_uri: `${DOCS}#redirect-uri-mismatch2`,
      });
    }
    codes.delete(code);
    const accessToken = `gho_${randomBytes(18).toString('base64url')}`;
    tokens.set(accessToken, issued.userId);
    sendTokenAnswer(response, accept, { access_token: accessToken, token_type: 'bearer', scope: issued.scope });
  }

  function api(response: ServerResponse, path: string, authorization: string | undefined) {
    if (outages.has('api')) return sendJson(response, 500, { message: 'Server Error' });
    const token = authorization ? BEARER.exec(authorization.trim())?.[1] : undefined;
    if (token === undefined) {
      return sendJson(response, 401, { message: 'Requires authentication', documentation_url: DOCS });
    }
    const user = users.get(tokens.get(token) ?? Number.NaN);
    if (!user) return sendJson(response, 401, { message: 'Bad credentials', documentation_url: DOCS });
    if (path === '/user') {
      const publicEmail = user.emails.find((entry) => entry.visibility === 'public')?.email ?? null;
      return sendJson(response, 200, { id: user.id, login: user.login, email: publicEmail });
    }
    return sendJson(response, 200, user.emails);
  }

  const server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        const url = new URL(request.url ?? '/', 'http://fake-github.invalid');
        const method = request.method ?? 'GET';
        requests.push({ method, path: url.pathname, query: url.searchParams, headers: request.headers, body });
        const route = `${method} ${url.pathname}`;
        if (route === 'GET /login/oauth/authorize') return authorize(response, url.searchParams);
        if (route === 'POST /login/oauth/access_token') {
          return exchangeCode(response, request.headers.accept, new URLSearchParams(body));
        }
        if (route === 'GET /user' || route === 'GET /user/emails') {
          return api(response, url.pathname, request.headers.authorization);
        }
        sendJson(response, 404, { message: 'Not Found', documentation_url: DOCS });
      },
      (error: unknown) => {
        response.destroy(error instanceof Error ? error : undefined);
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    clientId,
    clientSecret,
    env: {
      GITHUB_CLIENT_ID: clientId,
      GITHUB_CLIENT_SECRET: clientSecret,
      GITHUB_AUTHORIZE_URL: `${url}/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${url}/login/oauth/access_token`,
      GITHUB_API_URL: url,
    },
    requests,
    addUser(user) {
      users.set(user.id, user);
      return user;
    },
    issueCode,
    signInAs(userId) {
      if (userId !== null && !users.has(userId)) throw new Error(`fake GitHub has no user ${userId}`);
      browserUser = userId;
    },
    fail(part) {
      outages.add(part);
    },
    restore() {
      outages.clear();
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
