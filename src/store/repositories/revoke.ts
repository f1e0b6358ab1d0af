import { sql } from 'kysely';
import type { Actor } from '../store.js';
import { type ChangeRecord, foundIf, now, type Writer } from '../write.js';

/** A row kept after revoke (names are never reused): a credential by username, an admin key by name. */
type Revocable = { table: 'credentials'; key: 'username' } | { table: 'admin_keys'; key: 'name' };

/** Marks the unrevoked row named `name` revoked now; false, and nothing recorded, when there is none. */
export function revokeNamed(
  writer: Writer,
  { table, key }: Revocable,
  name: string,
  actor: Actor,
  change: ChangeRecord,
): Promise<boolean> {
  return writer.write({ actor }, async (trx) => {
    const result = await trx
      .updateTable(table)
      .set({ revoked_at: now() })
      .where(sql.ref(key), '=', name)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return foundIf(result.numUpdatedRows, change);
  });
}
