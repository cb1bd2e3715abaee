import { Type } from 'typebox';
import { AppRole, AppSchema, MemberRole } from './apps.js';
import { AppIdParams, RequiredString } from './common.js';

export const InviteMemberBody = Type.Object({
  email: RequiredString('The address to invite; whoever accepts must have verified it', {
    examples: ['colleague@example.com'],
  }),
  role: MemberRole,
});

export const InvitationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: MemberRole,
  expiresAt: Type.String({ format: 'date-time', description: 'Seven days after the invitation; single use' }),
});

export const InvitationResponse = Type.Object({ invitation: InvitationSchema });

export const MemberSchema = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: AppRole,
  createdAt: Type.String({ format: 'date-time', description: 'When they joined (the owner: when the app was made)' }),
});

export const MemberListResponse = Type.Object({
  members: Type.Array(MemberSchema, { description: 'The owner first (role `owner`), then members as they joined' }),
  invitations: Type.Array(InvitationSchema, { description: 'Invitations not yet accepted and not expired' }),
});

export const MemberParams = Type.Object({
  ...AppIdParams.properties,
  userId: Type.String({ description: 'The member’s user id (uuid)' }),
});

export const ChangeRoleBody = Type.Object({ role: MemberRole });
export const MemberResponse = Type.Object({ member: MemberSchema });

export const AcceptInvitationBody = Type.Object({
  token: RequiredString('The token of the invitation link (`/accept-invitation?token=…`)'),
});
export const AcceptInvitationResponse = Type.Object({ app: AppSchema });
