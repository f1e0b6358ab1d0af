import type { Dialect } from '../dialect.js';
import { toAdminKey } from '../rows.js';
import type { Actor, AdminKey, AdminKeyRepository } from '../store.js';
import { now, OPERATOR, type Writer } from '../write.js';
import { revokeNamed } from './revoke.js';

const ADMIN_KEY_COLUMNS = ['id', 'name', 'scope', 'created_at', 'revoked_at', 'last_used_at'] as const;

export class AdminKeys implements AdminKeyRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async create(name: string, scope: string, keyDigest: string, actor: Actor = OPERATOR): Promise<AdminKey> {
    return this.writer.write({ actor, conflict: `an admin key named ${name} exists` }, async (trx) => {
      const row = await trx
        .insertInto('admin_keys')
        .values({
          name,
          scope,
          key_digest: keyDigest,
          created_at: now(),
          revoked_at: null,
          last_used_at: null,
        })
        .returning(ADMIN_KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      return {
        result: toAdminKey(row),
        change: {
          kind: 'admin_key',
          dispensaryId: null,
          subject: name,
          action: 'admin_key.create',
          detail: { name, scope },
        },
      };
    });
  }

  find(keyDigest: string): Promise<AdminKey | undefined> {
    return this.unrevoked('key_digest', keyDigest);
  }

  get(id: number): Promise<AdminKey | undefined> {
    return this.unrevoked('id', id);
  }

  /** The key whose `column` is `value`, unless it was revoked. */
  private async unrevoked(
    column: 'key_digest' | 'id',
    value: string | number,
  ): Promise<AdminKey | undefined> {
    const row = await this.dialect.db
      .selectFrom('admin_keys')
      .select(ADMIN_KEY_COLUMNS)
      .where(column, '=', value)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && toAdminKey(row);
  }

  async list(): Promise<AdminKey[]> {
    const rows = await this.dialect.db
      .selectFrom('admin_keys')
      .select(ADMIN_KEY_COLUMNS)
      .orderBy('id')
      .execute();
    return rows.map(toAdminKey);
  }

  async touch(id: number, at: string): Promise<void> {
    await this.dialect.db.updateTable('admin_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async revoke(name: string, actor: Actor = OPERATOR): Promise<boolean> {
    return revokeNamed(this.writer, { table: 'admin_keys', key: 'name' }, name, actor, {
      kind: 'admin_key',
      dispensaryId: null,
      subject: name,
      action: 'admin_key.revoke',
      detail: { name },
    });
  }
}
