import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type { Actor, NewPasskey, Passkey, PasskeyCeremony, PasskeyRepository } from '../store.js';
import { type ChangeRecord, now, type Writer } from '../write.js';

const COLUMNS = [
  'id',
  'account_id',
  'credential_id',
  'public_key',
  'sign_count',
  'transports',
  'name',
  'created_at',
  'last_used_at',
] as const;

type PasskeyRow = Pick<Database['account_passkeys'], Exclude<(typeof COLUMNS)[number], 'id'>> & {
  id: number;
};

function toPasskey(row: PasskeyRow): Passkey {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    credentialId: row.credential_id,
    publicKey: row.public_key,
    signCount: Number(row.sign_count),
    transports: JSON.parse(row.transports) as string[],
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** The audit entry of a passkey change: the account's email and the passkey's name, never key material. */
async function passkeyChange(
  trx: Pick<Dialect['db'], 'selectFrom'>,
  action: string,
  passkey: Passkey,
): Promise<ChangeRecord> {
  const account = await trx
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', passkey.accountId)
    .executeTakeFirst();
  const email = account?.email ?? `#${passkey.accountId}`;
  return {
    kind: 'account',
    dispensaryId: null,
    subject: email,
    action,
    detail: { email, passkey_id: passkey.id, passkey_name: passkey.name },
  };
}

export class Passkeys implements PasskeyRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  add(accountId: number, passkey: NewPasskey, actor: Actor): Promise<Passkey> {
    return this.writer.write({ actor, conflict: 'this passkey is already registered' }, async (trx) => {
      const row = await trx
        .insertInto('account_passkeys')
        .values({
          account_id: accountId,
          credential_id: passkey.credentialId,
          public_key: passkey.publicKey,
          sign_count: passkey.signCount,
          transports: JSON.stringify(passkey.transports),
          name: passkey.name,
          created_at: now(),
          last_used_at: null,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      const added = toPasskey(row);
      return { result: added, change: await passkeyChange(trx, 'account.add_passkey', added) };
    });
  }

  async list(accountId: number): Promise<Passkey[]> {
    const rows = await this.dialect.db
      .selectFrom('account_passkeys')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map(toPasskey);
  }

  async findByCredentialId(credentialId: string): Promise<Passkey | undefined> {
    const row = await this.dialect.db
      .selectFrom('account_passkeys')
      .select(COLUMNS)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row && toPasskey(row);
  }

  remove(accountId: number, id: number, actor: Actor): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .deleteFrom('account_passkeys')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .returning(COLUMNS)
        .executeTakeFirst();
      if (!row) return { result: false };
      return { result: true, change: await passkeyChange(trx, 'account.remove_passkey', toPasskey(row)) };
    });
  }

  async used(id: number, signCount: number, at: string): Promise<void> {
    await this.dialect.db
      .updateTable('account_passkeys')
      .set({ sign_count: signCount, last_used_at: at })
      .where('id', '=', id)
      .execute();
  }

  async saveChallenge(challenge: string, ceremony: PasskeyCeremony, expiresAt: string): Promise<void> {
    await this.dialect.db.deleteFrom('passkey_challenges').where('expires_at', '<=', now()).execute();
    await this.dialect.db
      .insertInto('passkey_challenges')
      .values({
        challenge,
        purpose: ceremony.purpose,
        account_id: ceremony.purpose === 'register' ? ceremony.accountId : null,
        expires_at: expiresAt,
      })
      .execute();
  }

  async takeChallenge(challenge: string, at: string): Promise<PasskeyCeremony | undefined> {
    // Deleting is the claim: of two uses at once, only the one that deleted the row goes on.
    const row = await this.dialect.db
      .deleteFrom('passkey_challenges')
      .where('challenge', '=', challenge)
      .where('expires_at', '>', at)
      .returning(['purpose', 'account_id'])
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.purpose === 'register' && row.account_id !== null) {
      return { purpose: 'register', accountId: Number(row.account_id) };
    }
    return { purpose: 'sign_in' };
  }
}
