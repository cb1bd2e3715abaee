import type { AppRole } from '@webpush/db';

/** The roles on an app, from the one that may do most; each may do everything the ones after it may. */
export const appRoles: readonly AppRole[] = ['owner', 'admin', 'editor', 'viewer'];

const rank = (role: AppRole) => appRoles.length - appRoles.indexOf(role);

/** Whether `role` may use a route that needs `needed` (docs/accounts.md, "Teams"). */
export const roleAllows = (role: AppRole, needed: AppRole): boolean => rank(role) >= rank(needed);
