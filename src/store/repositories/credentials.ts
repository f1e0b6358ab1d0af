import type { Dialect } from '../dialect.js';
import { toCredential } from '../rows.js';
import type { Actor, Credential, CredentialLimits, CredentialRepository } from '../store.js';
import { now, OPERATOR, type Writer } from '../write.js';
import { revokeNamed } from './revoke.js';

export class Credentials implements CredentialRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async create(
    username: string,
    passwordHash: string,
    actor: Actor = OPERATOR,
    limits: CredentialLimits = {},
  ): Promise<Credential> {
    const conflict = `a credential named ${username} exists (usernames are never reused, even after revoke)`;
    return this.writer.write({ actor, conflict }, async (trx) => {
      const row = await trx
        .insertInto('credentials')
        .values({
          username,
          password_hash: passwordHash,
          created_at: now(),
          revoked_at: null,
          expires_at: limits.expiresAt ?? null,
          last_used_at: null,
          dispensary_ids: limits.dispensaryIds ? JSON.stringify(limits.dispensaryIds) : null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return {
        result: toCredential(row),
        change: {
          kind: 'credential',
          dispensaryId: null,
          subject: username,
          action: 'credential.issue',
          detail: {
            username,
            expires_at: limits.expiresAt ?? null,
            dispensary_ids: limits.dispensaryIds ?? null,
          },
        },
      };
    });
  }

  async find(username: string): Promise<Credential | undefined> {
    if (!this.dialect.canStoreText(username)) return undefined;
    const row = await this.dialect.db
      .selectFrom('credentials')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirst();
    return row && toCredential(row);
  }

  async touch(username: string, at: string): Promise<void> {
    await this.dialect.db
      .updateTable('credentials')
      .set({ last_used_at: at })
      .where('username', '=', username)
      .execute();
  }

  async list(): Promise<Credential[]> {
    const rows = await this.dialect.db.selectFrom('credentials').selectAll().orderBy('id').execute();
    return rows.map(toCredential);
  }

  async revoke(username: string, actor: Actor = OPERATOR): Promise<boolean> {
    if (!this.dialect.canStoreText(username)) return false;
    return revokeNamed(this.writer, { table: 'credentials', key: 'username' }, username, actor, {
      kind: 'credential',
      dispensaryId: null,
      subject: username,
      action: 'credential.revoke',
      detail: { username },
    });
  }
}
