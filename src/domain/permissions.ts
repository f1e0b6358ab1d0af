/**
 * Who may do what, in one table: every sync API route declares the permission it needs (its
 * `permission` fact), and the same check serves admin keys and people's accounts. The console, the
 * CLI's account commands and the sync API all ask `refusal` (directly or through the route fact).
 */

export type Role = 'operator' | 'manager' | 'staff' | 'integrator';

/**
 * The roles an invitation may give. An integrator is never invited: it registers itself at /developers
 * and an operator approves it (src/services/integrators.ts).
 */
export const ROLES: readonly Role[] = ['operator', 'manager', 'staff'];

/**
 * What a route does, as far as access goes:
 * - `operator`: the whole service (dispensaries created or deleted, integrators' credentials,
 *   admin keys, usage): operators only;
 * - `read`: read a dispensary and its menu; `audit`: its audit entries;
 * - `menu`, `stock`, `specials`: change the menu, stock levels, the specials;
 * - `store`: store information and publishing; `integrators`: the dispensary token integrators read with;
 * - `webhooks`: the dispensary's webhook subscriptions;
 * - `team`: the people of the dispensaries (a manager handles staff of its own dispensaries);
 * - `own_account`: the signed-in person's own sign-in methods (passkeys): every role;
 * - `developer`: an integrator's own portal (its credential, its access requests): integrators only,
 *   who may do nothing else of the sync API.
 */
export type Permission =
  | 'operator'
  | 'read'
  | 'audit'
  | 'menu'
  | 'stock'
  | 'specials'
  | 'store'
  | 'integrators'
  | 'webhooks'
  | 'team'
  | 'own_account'
  | 'developer';

/** What a manager may do within its dispensaries: everything but the whole service's business. */
const MANAGER_GRANTS: readonly Permission[] = [
  'own_account',
  'read',
  'audit',
  'menu',
  'stock',
  'specials',
  'store',
  'integrators',
  'webhooks',
  'team',
];

/** What each role may do, within the dispensaries it covers (an operator covers every one). */
export const GRANTS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  operator: new Set<Permission>(['operator', ...MANAGER_GRANTS]),
  manager: new Set<Permission>(MANAGER_GRANTS),
  staff: new Set<Permission>(['own_account', 'read', 'menu', 'stock', 'specials']),
  integrator: new Set<Permission>(['own_account', 'developer']),
};

/** Who makes a request: an admin key or a person, with the role and reach it acts with. */
export interface Principal {
  /** How the audit log names it: `key:NAME` or `account:EMAIL`. */
  actor: string;
  role: Role;
  /** The dispensaries it covers; `all` for an operator. */
  dispensaries: 'all' | readonly number[];
  /** The admin key, when it is one (Idempotency-Key answers are kept per key). */
  adminKeyId?: number;
  /** The account, when it is one. */
  accountId?: number;
}

/** An admin key as a principal: scope `all` is the operator, `dispensary:N` a manager of N. */
export function keyPrincipal(key: { id: number; name: string; scope: string }): Principal {
  const limit = key.scope.startsWith('dispensary:')
    ? Number(key.scope.slice('dispensary:'.length))
    : undefined;
  return limit === undefined
    ? { actor: `key:${key.name}`, role: 'operator', dispensaries: 'all', adminKeyId: key.id }
    : { actor: `key:${key.name}`, role: 'manager', dispensaries: [limit], adminKeyId: key.id };
}

/** An account as a principal. */
export function accountPrincipal(account: {
  id: number;
  email: string;
  role: Role;
  dispensaryIds: readonly number[];
}): Principal {
  return {
    actor: `account:${account.email}`,
    role: account.role,
    dispensaries: account.role === 'operator' ? 'all' : account.dispensaryIds,
    accountId: account.id,
  };
}

/** Whether the principal covers the dispensary. */
export function covers(principal: Principal, dispensaryId: number): boolean {
  return principal.dispensaries === 'all' || principal.dispensaries.includes(dispensaryId);
}

/** The dispensaries to limit a listing to: undefined for every one. */
export function reach(principal: Principal): readonly number[] | undefined {
  return principal.dispensaries === 'all' ? undefined : principal.dispensaries;
}

/**
 * Why the principal may not do this (to that dispensary, when the request names one), or undefined
 * when it may. The messages of admin keys are the ones the sync API always gave.
 */
export function refusal(
  principal: Principal,
  permission: Permission,
  dispensaryId?: number,
): string | undefined {
  const isKey = principal.adminKeyId !== undefined;
  if (!GRANTS[principal.role].has(permission)) {
    if (isKey) return 'This needs an admin key with scope all.';
    return permission === 'operator'
      ? 'This needs an operator account.'
      : `A ${principal.role} account may not do this (${describePermission(permission)}). Ask a manager or an operator.`;
  }
  if (dispensaryId !== undefined && !covers(principal, dispensaryId)) {
    const list = principal.dispensaries === 'all' ? '' : principal.dispensaries.join(', ');
    return isKey
      ? `This admin key is limited to dispensary ${list}.`
      : `Your account covers dispensaries ${list || '(none)'} only, not dispensary ${dispensaryId}.`;
  }
  return undefined;
}

function describePermission(permission: Permission): string {
  const words: Record<Permission, string> = {
    operator: 'the whole service',
    read: 'reading a dispensary',
    audit: 'the audit log',
    menu: 'changing the menu',
    stock: 'changing stock levels',
    specials: 'the specials',
    store: 'store information and publishing',
    integrators: 'the token integrators read with',
    webhooks: 'webhooks',
    team: 'the team',
    own_account: 'your own account',
    developer: 'the integrators’ portal',
  };
  return words[permission];
}
