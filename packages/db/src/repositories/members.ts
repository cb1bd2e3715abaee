import { and, asc, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { appInvitations, appMembers, apps, type MemberRole, users } from '../schema.js';
import type { App } from './apps.js';
import { type AuditContext, recordAudit } from './audit-log.js';

/** What a user may do on an app: its owner, or a member with a role (docs/accounts.md, "Teams"). */
export type AppRole = 'owner' | MemberRole;

/** The app a request names, the caller's role on it, and the plan it counts against (its owner's). */
export interface AppAccess {
  app: App;
  role: AppRole;
  ownerPlan: string;
}

/**
 * `userId`'s access to `appId`, in one statement: the app, its owner's plan and the caller's role
 * (`owner`, or the membership's). Null when the user neither owns the app nor is a member of it.
 * Read on every request, never cached: a removed member or a changed role holds on every API
 * instance at the next request. Members lose an app whose owner is suspended, as the owner does.
 */
/** Asked on every request under /apps/:appId: prepared once per database handle. */
const appAccessQueries = new WeakMap<Database, ReturnType<typeof prepareAppAccess>>();

function prepareAppAccess(db: Database) {
  const userId = sql.placeholder('userId');
  return db
    .select({ app: apps, ownerPlan: users.plan, memberRole: appMembers.role })
    .from(apps)
    .innerJoin(users, eq(users.id, apps.userId))
    .leftJoin(appMembers, and(eq(appMembers.appId, apps.id), eq(appMembers.userId, userId)))
    .where(
      and(
        eq(apps.id, sql.placeholder('appId')),
        or(eq(apps.userId, userId), and(isNotNull(appMembers.userId), isNull(users.suspendedAt))),
      ),
    )
    .limit(1)
    .prepare('find_app_access');
}

export async function findAppAccess(db: Database, userId: string, appId: string): Promise<AppAccess | null> {
  if (!isUuid(userId, appId)) return null;
  let query = appAccessQueries.get(db);
  if (!query) {
    query = prepareAppAccess(db);
    appAccessQueries.set(db, query);
  }
  const [row] = await query.execute({ userId, appId });
  if (!row) return null;
  const role: AppRole = row.app.userId === userId ? 'owner' : (row.memberRole ?? 'viewer');
  return { app: row.app, role, ownerPlan: row.ownerPlan };
}

export interface Member {
  userId: string;
  email: string;
  role: AppRole;
  createdAt: Date;
}

export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
  expiresAt: Date;
}

const invitationColumns = {
  id: appInvitations.id,
  email: appInvitations.email,
  role: appInvitations.role,
  createdAt: appInvitations.createdAt,
  expiresAt: appInvitations.expiresAt,
};

/** The app's people, the owner first (role `owner`), then members by arrival; and its pending invitations. */
export async function listMembers(
  db: Database,
  appId: string,
): Promise<{ members: Member[]; invitations: Invitation[] }> {
  const [owner, members, invitations] = await Promise.all([
    db
      .select({ userId: users.id, email: users.email, createdAt: apps.createdAt })
      .from(apps)
      .innerJoin(users, eq(users.id, apps.userId))
      .where(eq(apps.id, appId)),
    db
      .select({ userId: users.id, email: users.email, role: appMembers.role, createdAt: appMembers.createdAt })
      .from(appMembers)
      .innerJoin(users, eq(users.id, appMembers.userId))
      .where(eq(appMembers.appId, appId))
      .orderBy(asc(appMembers.createdAt), asc(appMembers.userId)),
    db
      .select(invitationColumns)
      .from(appInvitations)
      .where(
        and(eq(appInvitations.appId, appId), isNull(appInvitations.usedAt), gt(appInvitations.expiresAt, sql`now()`)),
      )
      .orderBy(asc(appInvitations.createdAt), asc(appInvitations.id)),
  ]);
  return { members: [...owner.map((row) => ({ ...row, role: 'owner' as const })), ...members], invitations };
}

export interface NewInvitation {
  appId: string;
  /** Normalised: trimmed and lower-cased. */
  email: string;
  role: MemberRole;
  tokenHash: string;
  invitedBy: string;
  expiresAt: Date;
}

/**
 * Invites `email` to the app, recorded as `member.invited` in the same transaction. `'member'`
 * (nothing changes) when the address is already the owner's or a member's. An earlier pending
 * invitation of the same address is withdrawn: only the newest link works.
 */
export async function createInvitation(
  db: Database,
  input: NewInvitation,
  audit: AuditContext,
): Promise<Invitation | 'member'> {
  return db.transaction(async (tx) => {
    const [taken] = await tx.execute<{ found: number }>(sql`
      select 1 as found from ${apps} a join ${users} u on u.id = a.user_id
        where a.id = ${input.appId} and u.email = ${input.email}
      union all
      select 1 from ${appMembers} m join ${users} u on u.id = m.user_id
        where m.app_id = ${input.appId} and u.email = ${input.email}
      limit 1`);
    if (taken) return 'member';
    await tx
      .delete(appInvitations)
      .where(
        and(
          eq(appInvitations.appId, input.appId),
          eq(appInvitations.email, input.email),
          isNull(appInvitations.usedAt),
        ),
      );
    const [invitation] = await tx.insert(appInvitations).values(input).returning(invitationColumns);
    if (!invitation) throw new Error('inserting the invitation returned no row');
    await recordAudit(
      tx,
      { appId: input.appId },
      {
        ...audit,
        action: 'member.invited',
        target: { type: 'invitation', id: invitation.id },
        details: { email: invitation.email, role: invitation.role },
      },
    );
    return invitation;
  });
}

export type InvitationAcceptance = { app: App; role: AppRole } | 'invalid' | 'forbidden';

/**
 * Redeems an invitation for `user`: `'invalid'` for an unknown, used or expired token; `'forbidden'`
 * (the invitation stays usable) when the account's e-mail is not verified or is not the invited
 * address. Otherwise the user joins with the invitation's role (an existing membership takes the
 * new role), the token is spent, and `member.joined` is recorded, all in one transaction.
 */
export async function acceptInvitation(
  db: Database,
  tokenHash: string,
  user: { id: string; email: string; emailVerified: boolean },
  ip: string | null,
): Promise<InvitationAcceptance> {
  return db.transaction(async (tx) => {
    const [invitation] = await tx
      .select({
        id: appInvitations.id,
        appId: appInvitations.appId,
        email: appInvitations.email,
        role: appInvitations.role,
      })
      .from(appInvitations)
      .where(
        and(
          eq(appInvitations.tokenHash, tokenHash),
          isNull(appInvitations.usedAt),
          gt(appInvitations.expiresAt, sql`now()`),
        ),
      )
      .for('update');
    if (!invitation) return 'invalid';
    if (!user.emailVerified || user.email !== invitation.email) return 'forbidden';
    const [app] = await tx.select().from(apps).where(eq(apps.id, invitation.appId));
    if (!app) return 'invalid';
    await tx.update(appInvitations).set({ usedAt: sql`now()` }).where(eq(appInvitations.id, invitation.id));
    if (app.userId === user.id) return { app, role: 'owner' };
    await tx
      .insert(appMembers)
      .values({ appId: app.id, userId: user.id, role: invitation.role })
      .onConflictDoUpdate({ target: [appMembers.appId, appMembers.userId], set: { role: invitation.role } });
    await recordAudit(
      tx,
      { appId: app.id },
      {
        actor: { type: 'user', id: user.id, email: user.email },
        ip,
        action: 'member.joined',
        target: { type: 'member', id: user.id },
        details: { role: invitation.role },
      },
    );
    return { app, role: invitation.role };
  });
}

/**
 * Gives a member another role, recorded as `member.role_changed` (from and to) in the same
 * transaction. Null when `userId` is not a member of the app (the owner is not one).
 */
export async function changeMemberRole(
  db: Database,
  appId: string,
  userId: string,
  role: MemberRole,
  audit: AuditContext,
): Promise<Member | null> {
  if (!isUuid(appId, userId)) return null;
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ role: appMembers.role })
      .from(appMembers)
      .where(and(eq(appMembers.appId, appId), eq(appMembers.userId, userId)))
      .for('update');
    if (!before) return null;
    const [updated] = await tx
      .update(appMembers)
      .set({ role })
      .where(and(eq(appMembers.appId, appId), eq(appMembers.userId, userId)))
      .returning({ userId: appMembers.userId, role: appMembers.role, createdAt: appMembers.createdAt });
    if (!updated) return null;
    const [person] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
    await recordAudit(
      tx,
      { appId },
      {
        ...audit,
        action: 'member.role_changed',
        target: { type: 'member', id: userId },
        details: { from: before.role, role },
      },
    );
    return { ...updated, email: person?.email ?? '' };
  });
}

/** Removes a member, recorded as `member.removed` in the same transaction; false when not a member. */
export async function removeMember(db: Database, appId: string, userId: string, audit: AuditContext): Promise<boolean> {
  if (!isUuid(appId, userId)) return false;
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(appMembers)
      .where(and(eq(appMembers.appId, appId), eq(appMembers.userId, userId)))
      .returning({ role: appMembers.role });
    if (!removed) return false;
    await recordAudit(
      tx,
      { appId },
      { ...audit, action: 'member.removed', target: { type: 'member', id: userId }, details: { role: removed.role } },
    );
    return true;
  });
}
