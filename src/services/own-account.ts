import type { Principal } from '../domain/permissions.js';
import type { Account, Store } from '../store/store.js';
import { ServiceError } from './errors.js';

/**
 * The account `by` is signed in as. What a person keeps for their own sign-in (passkeys, one-time
 * codes) belongs to an account, so an admin key's session is refused (403): `what` names what it has
 * none of, as in "Passkeys belong to accounts".
 */
export async function ownAccount(store: Store, by: Principal, what: string): Promise<Account> {
  const account = by.accountId === undefined ? undefined : await store.accounts.get(by.accountId);
  if (!account) {
    throw new ServiceError(
      'forbidden',
      `${what}: an admin key has none. Sign in to the console with your email and password first.`,
    );
  }
  return account;
}
