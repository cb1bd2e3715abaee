import type { Invitation, Member } from '@webpush/db';

/** A member as the API shows it. */
export const publicMember = (member: Member) => ({
  userId: member.userId,
  email: member.email,
  role: member.role,
  createdAt: member.createdAt.toISOString(),
});

/** An invitation as the API shows it (never its token). */
export const publicInvitation = (invitation: Invitation) => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  expiresAt: invitation.expiresAt.toISOString(),
});
