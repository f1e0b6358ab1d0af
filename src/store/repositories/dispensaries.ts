import type { Transaction } from 'kysely';
import type { Publishing, PublishingPatch } from '../../domain/publishing.js';
import type { StoreInfo, StoreInfoPatch } from '../../domain/store-info.js';
import type { Dialect } from '../dialect.js';
import { STORE_INFO_COLUMNS, storeInfoColumns, toDispensary, toStoreInfo } from '../rows.js';
import type { Database } from '../schema.js';
import type {
  Actor,
  Dispensary,
  DispensaryRepository,
  DispensarySummary,
  PublishedDispensary,
} from '../store.js';
import { foundIf, now, OPERATOR, type Writer } from '../write.js';
import { deleteItems } from './menu-queries.js';
import { feedHead } from './menu-reads.js';

const DISPENSARY_COLUMNS = ['id', 'name', 'created_at', 'updated_at'] as const;
/** The list's columns of each dispensary, which its item counts are grouped by. */
const LIST_COLUMNS = [
  'd.id',
  'd.name',
  'd.created_at',
  'd.updated_at',
  'd.published',
  'd.slug',
  'd.show_stock',
  'd.show_regular_price',
  'd.show_potency',
] as const;

export class Dispensaries implements DispensaryRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async create(name: string, tokenDigest: string, actor: Actor = OPERATOR): Promise<Dispensary> {
    return this.writer.write({ actor, conflict: 'a dispensary with that token exists' }, async (trx) => {
      const at = now();
      const row = await trx
        .insertInto('dispensaries')
        .values({ name, token_digest: tokenDigest, created_at: at, updated_at: at, currency: 'USD' })
        .returning(DISPENSARY_COLUMNS)
        .executeTakeFirstOrThrow();
      const dispensary = toDispensary(row);
      return {
        result: dispensary,
        change: {
          kind: 'dispensary',
          dispensaryId: dispensary.id,
          action: 'dispensary.create',
          detail: { name },
        },
      };
    });
  }

  async get(id: number): Promise<Dispensary | undefined> {
    const row = await dispensaryWhere(this.dialect.db, 'id', id)
      .select(DISPENSARY_COLUMNS)
      .executeTakeFirst();
    return row && toDispensary(row);
  }

  async findByTokenDigest(digest: string): Promise<Dispensary | undefined> {
    const current = await dispensaryWhere(this.dialect.db, 'token_digest', digest)
      .select(DISPENSARY_COLUMNS)
      .executeTakeFirst();
    if (current) return toDispensary(current);
    const previous = await this.dialect.db
      .selectFrom('dispensaries')
      .select([...DISPENSARY_COLUMNS, 'previous_token_expires_at'])
      .where('previous_token_digest', '=', digest)
      .where('previous_token_expires_at', '>', now())
      .executeTakeFirst();
    if (previous) return { ...toDispensary(previous), tokenExpiresAt: previous.previous_token_expires_at! };
    // An integrator's own token for the dispensary, while its access stands (src/services/integrators.ts).
    const granted = await this.dialect.db
      .selectFrom('integrator_access as r')
      .innerJoin('dispensaries as d', 'd.id', 'r.dispensary_id')
      .select(DISPENSARY_COLUMNS.map((column) => `d.${column}` as const))
      .where('r.token_digest', '=', digest)
      .where('r.status', '=', 'approved')
      .executeTakeFirst();
    return granted && toDispensary(granted);
  }

  async list(): Promise<DispensarySummary[]> {
    const rows = await this.dialect.db
      .selectFrom('dispensaries as d')
      .leftJoin('items as i', 'i.dispensary_id', 'd.id')
      .select(({ fn }) => [
        ...LIST_COLUMNS,
        fn.count<number>('i.id').as('item_count'),
        fn.sum<number>('i.active').as('active_count'),
      ])
      .groupBy(LIST_COLUMNS)
      .orderBy('d.id')
      .execute();
    return rows.map((row) => ({
      ...toDispensary(row),
      ...toPublishing(row),
      itemCount: Number(row.item_count),
      activeItemCount: Number(row.active_count ?? 0),
    }));
  }

  async setToken(
    id: number,
    digest: string,
    actor: Actor = OPERATOR,
    previousValidUntil?: string,
  ): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: id }, async (trx) => {
      const result = await trx
        .updateTable('dispensaries')
        .set((eb) => ({
          // The outgoing token becomes the previous one for its grace period; one older is dropped.
          previous_token_digest: previousValidUntil ? eb.ref('token_digest') : null,
          previous_token_expires_at: previousValidUntil ?? null,
          token_digest: digest,
          updated_at: now(),
        }))
        .where('id', '=', id)
        .executeTakeFirst();
      return foundIf(result.numUpdatedRows, {
        kind: 'dispensary',
        dispensaryId: id,
        action: 'dispensary.rotate_token',
        detail: { previous_valid_until: previousValidUntil ?? null },
      });
    });
  }

  async remove(id: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.writer.write({ actor, lockDispensary: id }, async (trx) => {
      const deleted = await deleteItems(trx, id);
      await trx.deleteFrom('integrator_access').where('dispensary_id', '=', id).execute();
      const result = await trx.deleteFrom('dispensaries').where('id', '=', id).executeTakeFirst();
      return foundIf(result.numDeletedRows, {
        kind: 'dispensary',
        dispensaryId: id,
        action: 'dispensary.remove',
        detail: { items: deleted.items, price_entries: deleted.priceEntries },
      });
    });
  }

  async getStoreInfo(dispensaryId: number): Promise<StoreInfo | undefined> {
    const row = await dispensaryWhere(this.dialect.db, 'id', dispensaryId)
      .select(STORE_INFO_COLUMNS)
      .executeTakeFirst();
    return row && toStoreInfo(row);
  }

  async getStoreInfoAt(dispensaryId: number): Promise<{ info: StoreInfo; cursor: number } | undefined> {
    const query = dispensaryWhere(this.dialect.db, 'id', dispensaryId).select(STORE_INFO_COLUMNS).compile();
    return this.dialect.readTransaction(async (readArrays) => {
      const [row] = await readArrays(query);
      if (!row) return undefined;
      const cursor = await feedHead(this.dialect, readArrays);
      const columns = Object.fromEntries(STORE_INFO_COLUMNS.map((column, index) => [column, row[index]]));
      return { info: toStoreInfo(columns as Parameters<typeof toStoreInfo>[0]), cursor };
    });
  }

  async updateStoreInfo(
    dispensaryId: number,
    patch: StoreInfoPatch,
    actor: Actor = OPERATOR,
  ): Promise<StoreInfo | undefined> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const before = await dispensaryWhere(trx, 'id', dispensaryId)
        .select(STORE_INFO_COLUMNS)
        .executeTakeFirst();
      if (!before) return { result: undefined };
      const row = await trx
        .updateTable('dispensaries')
        .set({ ...storeInfoColumns(patch), updated_at: now() })
        .where('id', '=', dispensaryId)
        .returning(STORE_INFO_COLUMNS)
        .executeTakeFirst();
      if (!row) return { result: undefined };
      const info = toStoreInfo(row);
      // A patch that sets what is already there is no change of the store information for the feed.
      const changed = JSON.stringify(withoutTime(toStoreInfo(before))) !== JSON.stringify(withoutTime(info));
      return {
        result: info,
        change: {
          kind: 'store',
          dispensaryId,
          action: 'dispensary.update',
          detail: { fields: Object.keys(patch) },
          feed: changed ? [{ type: 'store.updated', itemId: null, reason: null, item: null }] : [],
        },
      };
    });
  }

  async getPublishing(dispensaryId: number): Promise<Publishing | undefined> {
    const row = await dispensaryWhere(this.dialect.db, 'id', dispensaryId)
      .select(PUBLISHING_COLUMNS)
      .executeTakeFirst();
    return row && toPublishing(row);
  }

  async setPublishing(
    dispensaryId: number,
    patch: PublishingPatch,
    actor: Actor = OPERATOR,
    storePatch: StoreInfoPatch = {},
  ): Promise<Publishing | undefined> {
    return this.writer.write({ actor, conflict: 'that slug is used by another dispensary' }, async (trx) => {
      const columns: {
        published?: number;
        slug?: string | null;
        show_stock?: number;
        show_regular_price?: number;
        show_potency?: number;
      } = {};
      const flag = (value: boolean) => (value ? 1 : 0);
      if (patch.published !== undefined) columns.published = flag(patch.published);
      if (patch.slug !== undefined) columns.slug = patch.slug;
      if (patch.showStock !== undefined) columns.show_stock = flag(patch.showStock);
      if (patch.showRegularPrice !== undefined) columns.show_regular_price = flag(patch.showRegularPrice);
      if (patch.showPotency !== undefined) columns.show_potency = flag(patch.showPotency);
      const row = await trx
        .updateTable('dispensaries')
        .set({ ...storeInfoColumns(storePatch), ...columns, updated_at: now() })
        .where('id', '=', dispensaryId)
        .returning(PUBLISHING_COLUMNS)
        .executeTakeFirst();
      if (!row) return { result: undefined };
      const publishing = toPublishing(row);
      return {
        result: publishing,
        change: {
          kind: 'dispensary',
          dispensaryId,
          action: publishing.published ? 'dispensary.publish' : 'dispensary.unpublish',
          detail: {
            slug: publishing.slug,
            show_stock: publishing.showStock,
            show_regular_price: publishing.showRegularPrice,
            show_potency: publishing.showPotency,
            ...(Object.keys(storePatch).length > 0 ? { fields: Object.keys(storePatch) } : {}),
          },
        },
      };
    });
  }

  async findBySlug(slug: string): Promise<PublishedDispensary | undefined> {
    const row = await dispensaryWhere(this.dialect.db, 'slug', slug)
      .select(['id', ...PUBLISHING_COLUMNS])
      .executeTakeFirst();
    return row && { id: Number(row.id), ...toPublishing(row) };
  }
}

/** The columns a dispensary is found by, and what each holds. */
type DispensaryKey = { id: number; slug: string; token_digest: string };

/** The dispensary whose `column` is `value`, for a read (in `db` or a write's transaction) to choose its columns. */
const dispensaryWhere = <Column extends keyof DispensaryKey>(
  db: Pick<Transaction<Database>, 'selectFrom'>,
  column: Column,
  value: DispensaryKey[Column],
) => {
  // Widened for Kysely, which cannot type a comparison with a generic column; the signature pairs them.
  const key: keyof DispensaryKey = column;
  const wanted: DispensaryKey[keyof DispensaryKey] = value;
  return db.selectFrom('dispensaries').where(key, '=', wanted);
};

const PUBLISHING_COLUMNS = ['published', 'slug', 'show_stock', 'show_regular_price', 'show_potency'] as const;

function toPublishing(row: {
  published: number;
  slug: string | null;
  show_stock: number;
  show_regular_price: number;
  show_potency: number;
}): Publishing {
  return {
    published: Number(row.published) === 1,
    slug: row.slug,
    showStock: Number(row.show_stock) === 1,
    showRegularPrice: Number(row.show_regular_price) === 1,
    showPotency: Number(row.show_potency) === 1,
  };
}

const withoutTime = ({ updatedAt: _updatedAt, ...info }: StoreInfo) => info;
