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
};

/** The signed-in user, or null when the session cookie is absent or dead. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<User | null> => {
      try {
        return (await call(api.GET('/api/v1/auth/me'))).user;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
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

/**
 * After sign-in or sign-out: the new user (or null) replaces the old one, and every other cached
 * answer, which belonged to the previous session, is dropped.
 */
export function switchUser(queryClient: QueryClient, user: User | null): void {
  queryClient.setQueryData(['me'], user);
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'me' && query.queryKey[0] !== 'providers' });
}
