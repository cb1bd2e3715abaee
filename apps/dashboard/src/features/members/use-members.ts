import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

export const MEMBER_ROLES = ['admin', 'editor', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** The app's people (owner first) and its pending invitations. */
export const useMembers = (appId: string) =>
  useQuery({
    queryKey: ['members', appId],
    queryFn: () => call(api.GET('/api/v1/apps/{appId}/members', { params: { path: { appId } } })),
  });

function useMembersChange<Input, Output>(appId: string, change: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['members', appId] });
    },
  });
}

export const useInvite = (appId: string) =>
  useMembersChange(appId, (input: { email: string; role: MemberRole }) =>
    call(api.POST('/api/v1/apps/{appId}/members', { params: { path: { appId } }, body: input })),
  );

export const useChangeRole = (appId: string) =>
  useMembersChange(appId, (input: { userId: string; role: MemberRole }) =>
    call(
      api.PATCH('/api/v1/apps/{appId}/members/{userId}', {
        params: { path: { appId, userId: input.userId } },
        body: { role: input.role },
      }),
    ),
  );

/** Errors are thrown, for the confirm dialog that asked to show. */
export function useRemoveMember(appId: string) {
  const queryClient = useQueryClient();
  return async (userId: string) => {
    await call(api.DELETE('/api/v1/apps/{appId}/members/{userId}', { params: { path: { appId, userId } } }));
    await queryClient.invalidateQueries({ queryKey: ['members', appId] });
    await queryClient.invalidateQueries({ queryKey: ['apps'] });
  };
}

export const useAcceptInvitation = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => call(api.POST('/api/v1/invitations/accept', { body: { token } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
};
