import type { Transaction } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type {
  Account,
  AccountAccess,
  AccountLink,
  AccountLinkPurpose,
  AccountRepository,
  AccountRole,
  AccountWithPassword,
  Actor,
} from '../store.js';
import { type ChangeRecord, now, OPERATOR, type Writer } from '../write.js';

const COLUMNS = [
  'id',
  'email',
  'password_digest',
  'role',
  'dispensary_ids',
  'created_at',
  'updated_at',
  'sso_identity',
] as const;

type AccountRow = Pick<Database['accounts'], Exclude<(typeof COLUMNS)[number], 'id'>> & { id: number };

function toAccountWithPassword(row: AccountRow): AccountWithPassword {
  return {
    id: Number(row.id),
    email: row.email,
    role: row.role as AccountRole,
    dispensaryIds: JSON.parse(row.dispensary_ids) as number[],
    // Accepted: a password chosen, or signed in with single sign-on.
    active: row.password_digest !== null || row.sso_identity !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    passwordDigest: row.password_digest,
    ssoIdentity: row.sso_identity,
  };
}

function toAccount(row: AccountRow): Account {
  const { passwordDigest: _secret, ssoIdentity: _identity, ...account } = toAccountWithPassword(row);
  return account;
}

/**
 * A new account row with no password (an invitation, an integrator's registration, or single sign-on's
 * `ssoIdentity`), inside the caller's write.
 */
export async function insertAccount(
  trx: Transaction<Database>,
  email: string,
  access: AccountAccess,
  at: string,
  ssoIdentity: string | null = null,
): Promise<Account> {
  const row = await trx
    .insertInto('accounts')
    .values({
      email,
      password_digest: null,
      role: access.role,
      dispensary_ids: JSON.stringify(access.dispensaryIds),
      created_at: at,
      updated_at: at,
      sso_identity: ssoIdentity,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return toAccount(row);
}

/** The change notice and audit entry of an account write: the email and access, never a secret. */
function accountChange(action: string, account: Account, detail: Record<string, unknown> = {}): ChangeRecord {
  return {
    kind: 'account',
    dispensaryId: null,
    subject: account.email,
    action,
    detail: { email: account.email, ...detail },
  };
}

const accessDetail = (access: AccountAccess) => ({
  role: access.role,
  dispensary_ids: access.dispensaryIds,
});

export class Accounts implements AccountRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  invite(email: string, access: AccountAccess, link: AccountLink, actor: Actor = OPERATOR): Promise<Account> {
    return this.writer.write(
      { actor, conflict: `an account with the email ${email} exists` },
      async (trx) => {
        const at = now();
        const account = await insertAccount(trx, email, access, at);
        await this.insertLink(trx, account.id, link, at);
        return {
          result: account,
          change: accountChange('account.invite', account, {
            ...accessDetail(access),
            link_expires_at: link.expiresAt,
          }),
        };
      },
    );
  }

  async get(id: number): Promise<Account | undefined> {
    const row = await this.rowWhere('id', id);
    return row && toAccount(row);
  }

  async findByEmail(email: string): Promise<AccountWithPassword | undefined> {
    const row = await this.rowWhere('email', email);
    return row && toAccountWithPassword(row);
  }

  /** The account found by one of its unique keys: its id, its email, or the identity its single sign-on gives. */
  private rowWhere(column: 'id', value: number): Promise<AccountRow | undefined>;
  private rowWhere(column: 'email' | 'sso_identity', value: string): Promise<AccountRow | undefined>;
  private rowWhere(column: 'id' | 'email' | 'sso_identity', value: number | string) {
    return this.dialect.db
      .selectFrom('accounts')
      .select(COLUMNS)
      .where(column, '=', value)
      .executeTakeFirst();
  }

  async list(): Promise<Account[]> {
    const rows = await this.dialect.db.selectFrom('accounts').select(COLUMNS).orderBy('id').execute();
    return rows.map(toAccount);
  }

  change(id: number, access: AccountAccess, actor: Actor = OPERATOR): Promise<Account | undefined> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .updateTable('accounts')
        .set({
          role: access.role,
          dispensary_ids: JSON.stringify(access.dispensaryIds),
          updated_at: now(),
        })
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst();
      if (!row) return { result: undefined };
      const account = toAccount(row);
      return { result: account, change: accountChange('account.change', account, accessDetail(access)) };
    });
  }

  remove(id: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx.deleteFrom('accounts').where('id', '=', id).returning(COLUMNS).executeTakeFirst();
      if (!row) return { result: false };
      await this.forget(trx, id);
      await trx.deleteFrom('account_passkeys').where('account_id', '=', id).execute();
      await trx.deleteFrom('account_totp').where('account_id', '=', id).execute();
      await trx.deleteFrom('account_recovery_codes').where('account_id', '=', id).execute();
      await trx.deleteFrom('pending_sign_ins').where('account_id', '=', id).execute();
      await trx.deleteFrom('integrators').where('account_id', '=', id).execute();
      await trx.deleteFrom('integrator_access').where('account_id', '=', id).execute();
      return { result: true, change: accountChange('account.remove', toAccount(row)) };
    });
  }

  replaceLinks(id: number, link: AccountLink, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx.selectFrom('accounts').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      if (!row) return { result: false };
      await trx.deleteFrom('account_links').where('account_id', '=', id).execute();
      await this.insertLink(trx, id, link, now());
      return {
        result: true,
        change: accountChange('account.reset_password', toAccount(row), { link_expires_at: link.expiresAt }),
      };
    });
  }

  async linkAccount(
    digest: string,
    at: string,
  ): Promise<(Account & { purpose: AccountLinkPurpose }) | undefined> {
    const row = await this.dialect.db
      .selectFrom('account_links')
      .innerJoin('accounts', 'accounts.id', 'account_links.account_id')
      .select(COLUMNS.map((column) => `accounts.${column}` as const))
      .select('account_links.purpose')
      .where('account_links.digest', '=', digest)
      .where('account_links.expires_at', '>', at)
      .executeTakeFirst();
    return row && { ...toAccount(row), purpose: row.purpose as AccountLinkPurpose };
  }

  async redeemLink(digest: string, at: string, passwordDigest: string): Promise<Account | undefined> {
    const found = await this.linkAccount(digest, at);
    if (!found) return undefined;
    // The account acts for itself: the audit log names the person who chose the password.
    return this.writer.write({ actor: `account:${found.email}` }, async (trx) => {
      // Deleting the link is the claim: of two uses at once, only the one that deleted it goes on.
      const claimed = await trx
        .deleteFrom('account_links')
        .where('digest', '=', digest)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      if (Number(claimed.numDeletedRows) === 0) return { result: undefined };
      const row = await trx
        .updateTable('accounts')
        .set({ password_digest: passwordDigest, updated_at: now() })
        .where('id', '=', found.id)
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      await this.forget(trx, found.id);
      const account = toAccount(row);
      const action = found.purpose === 'invite' ? 'account.accept_invitation' : 'account.set_password';
      return { result: account, change: accountChange(action, account) };
    });
  }

  async changePassword(
    id: number,
    previousDigest: string,
    passwordDigest: string,
    keepSession: string | null,
  ): Promise<{ account: Account; endedSessions: number } | undefined> {
    const found = await this.get(id);
    if (!found) return undefined;
    // The account acts for itself: the audit log names the person who changed the password.
    return this.writer.write({ actor: `account:${found.email}` }, async (trx) => {
      const row = await trx
        .updateTable('accounts')
        .set({ password_digest: passwordDigest, updated_at: now() })
        .where('id', '=', id)
        .where('password_digest', '=', previousDigest)
        .returning(COLUMNS)
        .executeTakeFirst();
      if (!row) return { result: undefined };
      // A reset link issued before, or a sign-in with the old password waiting for its code, is done with.
      await trx.deleteFrom('account_links').where('account_id', '=', id).execute();
      await trx.deleteFrom('pending_sign_ins').where('account_id', '=', id).execute();
      let sessions = trx.deleteFrom('console_sessions').where('account_id', '=', id);
      if (keepSession !== null) sessions = sessions.where('id_digest', '!=', keepSession);
      const ended = Number((await sessions.executeTakeFirst()).numDeletedRows);
      const account = toAccount(row);
      return {
        result: { account, endedSessions: ended },
        change: accountChange('account.change_password', account, { ended_sessions: ended }),
      };
    });
  }

  async findBySsoIdentity(identity: string): Promise<Account | undefined> {
    const row = await this.rowWhere('sso_identity', identity);
    return row && toAccount(row);
  }

  async signedInWithSso(id: number, identity: string): Promise<Account | undefined> {
    const found = await this.get(id);
    if (!found) return undefined;
    // The account acts for itself: the audit log names the person who signed in.
    return this.writer.write({ actor: `account:${found.email}` }, async (trx) => {
      const before = await trx.selectFrom('accounts').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      if (!before || (before.sso_identity !== null && before.sso_identity !== identity)) {
        return { result: undefined };
      }
      const first = before.sso_identity === null;
      const row = first
        ? await trx
            .updateTable('accounts')
            .set({ sso_identity: identity, updated_at: now() })
            .where('id', '=', id)
            .where('sso_identity', 'is', null)
            .returning(COLUMNS)
            .executeTakeFirst()
        : before;
      if (!row) return { result: undefined };
      // An unused invitation or reset link is done with: the person is in.
      const links = await trx.deleteFrom('account_links').where('account_id', '=', id).executeTakeFirst();
      const account = toAccount(row);
      const changed = first || Number(links.numDeletedRows) > 0;
      return {
        result: account,
        change: {
          ...accountChange('account.sso_sign_in', account, {
            note: 'signed in with SSO',
            ...(first && { bound: true }),
          }),
          // Nothing but the sign-in to record: the audit entry alone, no change notice.
          ...(!changed && { unchanged: true }),
        },
      };
    });
  }

  joinWithSso(email: string, access: AccountAccess, identity: string): Promise<Account> {
    return this.writer.write(
      { actor: `account:${email}`, conflict: `an account with the email ${email} or this identity exists` },
      async (trx) => {
        const account = await insertAccount(trx, email, access, now(), identity);
        return {
          result: account,
          change: accountChange('account.sso_sign_in', account, {
            note: 'signed in with SSO',
            joined: true,
            ...accessDetail(access),
          }),
        };
      },
    );
  }

  /** Deletes the account's links and sessions (a new password or a removed account ends them all). */
  private async forget(trx: Transaction<Database>, id: number): Promise<void> {
    await trx.deleteFrom('account_links').where('account_id', '=', id).execute();
    await trx.deleteFrom('console_sessions').where('account_id', '=', id).execute();
  }

  private async insertLink(
    trx: Transaction<Database>,
    id: number,
    link: AccountLink,
    at: string,
  ): Promise<void> {
    await trx
      .insertInto('account_links')
      .values({
        digest: link.digest,
        account_id: id,
        purpose: link.purpose,
        created_at: at,
        expires_at: link.expiresAt,
      })
      .execute();
  }
}
