import type { AppWithStats } from './use-apps.js';

export type AppRole = AppWithStats['role'];

const rank: Record<AppRole, number> = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/**
 * Whether the caller's role on the app allows what needs `needed` (docs/accounts.md, "Teams"): pages
 * hide what the API would refuse with 403. The API decides; this only keeps dead buttons away.
 */
export const roleAllows = (role: AppRole, needed: AppRole): boolean => rank[role] >= rank[needed];
