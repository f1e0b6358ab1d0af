import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ConsoleSession, ConsoleSessionRepository } from '../store.js';

const COLUMNS = [
  'id_digest',
  'admin_key_id',
  'account_id',
  'created_at',
  'last_seen_at',
  'expires_at',
] as const;

/** Console sign-ins: bookkeeping, not changes (no notice, no audit entry), keyed by the id's digest. */
export class ConsoleSessions implements ConsoleSessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(session: ConsoleSession): Promise<void> {
    await this.db
      .insertInto('console_sessions')
      .values({
        id_digest: session.idDigest,
        admin_key_id: session.adminKeyId,
        account_id: session.accountId,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async find(idDigest: string): Promise<ConsoleSession | undefined> {
    const row = await this.db
      .selectFrom('console_sessions')
      .select(COLUMNS)
      .where('id_digest', '=', idDigest)
      .executeTakeFirst();
    return (
      row && {
        idDigest: row.id_digest,
        adminKeyId: row.admin_key_id === null ? null : Number(row.admin_key_id),
        accountId: row.account_id === null ? null : Number(row.account_id),
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async touch(idDigest: string, at: string): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ last_seen_at: at })
      .where('id_digest', '=', idDigest)
      .execute();
  }

  async remove(idDigest: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('console_sessions')
      .where('id_digest', '=', idDigest)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async removeOfAccount(accountId: number): Promise<number> {
    const result = await this.db
      .deleteFrom('console_sessions')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async removeEnded(expiredBefore: string, idleBefore: string): Promise<void> {
    await this.db
      .deleteFrom('console_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', expiredBefore), eb('last_seen_at', '<=', idleBefore)]))
      .execute();
  }
}
