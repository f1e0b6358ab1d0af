import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type {
  MenuChange,
  MenuChangePage,
  MenuChangeRepository,
  MenuChangeType,
  RemovalReason,
} from '../store.js';
import { highestSeq } from './changes.js';
import { feedBounds } from './menu-reads.js';

const COLUMNS = ['seq', 'dispensary_id', 'at', 'type', 'item_id', 'reason', 'item'] as const;

/** Rows deleted per pruning statement: short transactions, so writers are never held up for long. */
export const DEFAULT_PRUNE_BATCH = 5_000;

/** Reads and prunes the live menu feed; Writer writes it, in the transaction of each write. */
export class MenuChanges implements MenuChangeRepository {
  private readonly db: Kysely<Database>;

  constructor(private readonly dialect: Dialect) {
    this.db = dialect.db;
  }

  async page(dispensaryId: number, after: number, limit: number): Promise<MenuChangePage> {
    const changesQuery = this.db
      .selectFrom('menu_changes')
      .select(COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(limit)
      .compile();
    // One snapshot: the head is consistent with the page (no change at or below it can appear later).
    return this.dialect.readTransaction(async (readArrays) => {
      const rows = await readArrays(changesQuery);
      const { head, oldest } = await feedBounds(this.dialect, readArrays);
      return { changes: rows.map(fromArray), head, oldest };
    });
  }

  async since(after: number, limit: number): Promise<MenuChange[]> {
    const rows = await this.db
      .selectFrom('menu_changes')
      .select(COLUMNS)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => fromArray(COLUMNS.map((column) => row[column])));
  }

  head(): Promise<number> {
    return highestSeq(this.db, 'menu_changes');
  }

  async prune(before: string, batch = DEFAULT_PRUNE_BATCH): Promise<number> {
    const head = await this.head();
    let deleted = 0;
    for (;;) {
      // The oldest `batch` rows recorded before `before`, never the newest row of all (see prune's doc).
      const result = await this.db
        .deleteFrom('menu_changes')
        .where(
          'seq',
          'in',
          this.db
            .selectFrom('menu_changes')
            .select('seq')
            .where('at', '<', before)
            .where('seq', '<', head)
            .orderBy('seq')
            .limit(batch),
        )
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      deleted += count;
      if (count < batch) return deleted;
    }
  }
}

/** A row read as an array of COLUMNS. */
function fromArray(row: readonly unknown[]): MenuChange {
  return {
    seq: Number(row[0]),
    dispensaryId: Number(row[1]),
    at: row[2] as string,
    type: row[3] as MenuChangeType,
    itemId: row[4] === null ? null : Number(row[4]),
    reason: row[5] as RemovalReason | null,
    item: row[6] as string | null,
  };
}
