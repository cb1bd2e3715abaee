import { findUserByEmail } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { type InvitationFacts, invitationMail } from '#routes/auth/mail-templates.js';
import type { Language } from '#src/languages.js';

/**
 * After the invitation is committed: the link, in the background, in the language of the account
 * that has the address, or the inviter's when none has it yet.
 */
export function sendInvitationEmail(
  app: FastifyInstance,
  to: string,
  inviterLanguage: Language,
  facts: InvitationFacts,
  token: string,
): void {
  app.mailer.sendLater(async () => {
    // Per address as well as per IP: invitations must not flood one inbox.
    if (!(await app.mayMailAddress('invitation', to))) return null;
    const invitee = await findUserByEmail(app.db, to);
    const link = `${app.config.publicUrl}/accept-invitation?token=${encodeURIComponent(token)}`;
    return invitationMail(to, invitee?.language ?? inviterLanguage, facts, link);
  });
}
