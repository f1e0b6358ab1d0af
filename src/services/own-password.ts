import { hashPassword, type ScryptCost, verifyPassword } from '../auth/password.js';
import { secretDigest } from '../auth/secrets.js';
import type { Principal } from '../domain/permissions.js';
import type { Store } from '../store/store.js';
import { checkedPassword } from './accounts.js';
import type { ConsoleSessionService } from './console-sessions.js';
import { ServiceError } from './errors.js';

/**
 * A signed-in person changes their own password, with the current one: the new one follows the rules
 * of every chosen password (checkedPassword), a wrong current password counts as a failed login of the
 * account and of the address in the login guard (as at sign-in; 429 past the limit, before any hash),
 * and the change ends every other session of the account, in the write the audit log records as theirs
 * (`account.change_password`, with how many sessions ended; never a password).
 */
export class OwnPasswordService {
  constructor(
    private readonly store: Store,
    private readonly sessions: ConsoleSessionService,
    private readonly scryptCost?: ScryptCost,
  ) {}

  /**
   * Changes `by`'s password from `current` to `next`. `keepSession` is the id of the session the change
   * was made from, which stays; every other session of the account ends. Answers how many ended.
   */
  async change(
    by: Principal,
    input: { current: unknown; next: unknown },
    keepSession: string | undefined,
    address?: string,
  ): Promise<{ endedSessions: number }> {
    const account = by.accountId === undefined ? undefined : await this.store.accounts.get(by.accountId);
    const found = account && (await this.store.accounts.findByEmail(account.email));
    if (!found) {
      throw new ServiceError(
        'forbidden',
        'A password belongs to an account: an admin key has none. Sign in to the console with your email and password first.',
      );
    }
    const attempt = { username: `account:${found.email}`, address };
    await this.sessions.refuseThrottled(attempt);
    const next = checkedPassword(input.next);
    if (found.passwordDigest === null) {
      throw new ServiceError(
        'conflict',
        `Your account has no password yet (you sign in with single sign-on or a passkey). Ask your manager for a link to choose one (npx menu-api account reset-password ${found.email}).`,
      );
    }
    const current = typeof input.current === 'string' && input.current.length <= 1024 ? input.current : '';
    if (!(await verifyPassword(current, found.passwordDigest))) {
      await this.sessions.failed(attempt);
      throw new ServiceError(
        'forbidden',
        'That is not your current password, so nothing was changed. Type it again (or, if you forgot it, ask your manager for a reset link).',
      );
    }
    // Only after the current password is proven: otherwise this would answer guesses of it unthrottled.
    if (next === current) {
      throw new ServiceError('invalid_request', 'Choose a new password other than your current one.');
    }
    const changed = await this.store.accounts.changePassword(
      found.id,
      found.passwordDigest,
      await hashPassword(next, this.scryptCost),
      keepSession === undefined ? null : secretDigest(keepSession),
    );
    if (!changed) {
      throw new ServiceError(
        'conflict',
        'Your password changed while this was sent (in another session?), so nothing was changed. Sign in again.',
      );
    }
    return { endedSessions: changed.endedSessions };
  }
}
