import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { Change, ChangeKind, ChangeRepository } from '../store.js';

/** Reads the change notices; they are written by Writer, in the transaction of each write. */
export class Changes implements ChangeRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async since(seq: number): Promise<Change[]> {
    const rows = await this.db
      .selectFrom('changes')
      .select(['seq', 'kind', 'dispensary_id', 'subject'])
      .where('seq', '>', seq)
      .orderBy('seq')
      .execute();
    return rows.map((row) => ({
      seq: Number(row.seq),
      kind: row.kind as ChangeKind,
      dispensaryId: row.dispensary_id === null ? null : Number(row.dispensary_id),
      subject: row.subject,
    }));
  }

  lastSeq(): Promise<number> {
    return highestSeq(this.db, 'changes');
  }
}

/** The highest cursor of the change notices or of the live feed (0 before any). */
export async function highestSeq(db: Kysely<Database>, table: 'changes' | 'menu_changes'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select(({ fn }) => fn.max<number>('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
