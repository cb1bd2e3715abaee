import { type QueryClient, useQuery } from '@tanstack/react-query';
import { ApiError, api, call } from './client.js';

export type User = {
  id: string;
  email: string;
  plan: string;
  emailVerified: boolean;
  language: 'ja' | 'en';
  /** `operator`: the operator console is shown. */
  role: 'customer' | 'operator';
  /** Signing in also takes a code from an authenticator app. */
  totpEnabled: boolean;
};

/**
 * Whether this browser has signed in since it last signed out: a hint kept in local storage (the
 * session cookie itself is HttpOnly). Without it, a signed-out page (pricing, sign-in…) does not ask
 * GET /auth/me, whose 401 every browser logs as a red console error; a signed-in page always asks.
 */
const SIGNED_IN_HINT = 'wp_signed_in';
const SIGNED_OUT_PAGES = new Set([
  '/pricing',
  '/sign-in',
  '/sign-up',
  '/login',
  '/verify-email',
  '/forgot-password',
  '/reset-password',
]);

function rememberSignedIn(user: User | null): void {
  try {
    if (user) localStorage.setItem(SIGNED_IN_HINT, '1');
    else localStorage.removeItem(SIGNED_IN_HINT);
  } catch {
    // Storage refused (a locked-down browser): the page asks every time, as before.
  }
}

function mayBeSignedIn(): boolean {
  try {
    return localStorage.getItem(SIGNED_IN_HINT) !== null;
  } catch {
    return true;
  }
}

/** The cached null came from the hint, not from the API: a signed-in page asks before sending anyone away. */
let guessedSignedOut = false;
export const signedOutIsAGuess = () => guessedSignedOut;

/** The signed-in user, or null when the session cookie is absent or dead. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<User | null> => {
      guessedSignedOut = !mayBeSignedIn() && SIGNED_OUT_PAGES.has(window.location.pathname);
      if (guessedSignedOut) return null;
      try {
        // `{user: null}` (200) and 401 both mean nobody is signed in.
        const user = (await call(api.GET('/api/v1/auth/me'))).user ?? null;
        rememberSignedIn(user);
        return user;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          rememberSignedIn(null);
          return null;
        }
        throw error;
      }
    },
  });
}

/** Whether "Sign in with GitHub" is configured on this server (no endpoint yet → not configured). */
export function useProviders() {
  return useQuery({
    queryKey: ['providers'],
    queryFn: async () => {
      try {
        return await call(api.GET('/api/v1/auth/providers'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return { github: false };
        throw error;
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Set by a sign-out here: the page it leaves sends the browser to a plain /sign-in, with no `next`. */
let signedOutHere = false;
export const leftBySigningOut = () => signedOutHere;
/** Where that is: /sign-in, or the sign-in page that says why (the account was deleted). */
let signedOutTo = '/sign-in';
export const signedOutDestination = () => signedOutTo;

/**
 * After sign-in or sign-out: the new user (or null) replaces the old one, and every other cached
 * answer, which belonged to the previous session, is dropped.
 */
export function switchUser(
  queryClient: QueryClient,
  user: User | null,
  { signingOut = false, to = '/sign-in' } = {},
): void {
  signedOutHere = signingOut;
  signedOutTo = to;
  rememberSignedIn(user);
  guessedSignedOut = false;
  queryClient.setQueryData(['me'], user);
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'me' && query.queryKey[0] !== 'providers' });
}
