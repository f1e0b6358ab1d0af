import { type CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import type { MenuItem, MenuItemInput, StockUpdate } from '../domain/item.js';
import type { StoreInfo, StoreInfoPatch } from '../domain/store-info.js';
import { migrateToLatest, pendingMigrations } from './migrations/index.js';
import {
  assignIds,
  foldMenu,
  itemRow,
  MENU_ITEM_COLUMNS,
  MENU_PRICE_COLUMNS,
  type PreviousPrice,
  priceKey,
  priceRows,
  STORE_INFO_COLUMNS,
  storeInfoColumns,
  toAdminKey,
  toAuditEntry,
  toCredential,
  toDispensary,
  toStoreInfo,
} from './rows.js';
import type { Database } from './schema.js';
import {
  type Actor,
  type AdminKey,
  type AuditEntry,
  type AuditQuery,
  type Change,
  type ChangeKind,
  ConflictError,
  type Credential,
  type CredentialLimits,
  type Dispensary,
  type DispensarySummary,
  type IdempotentAnswer,
  type Store,
  UnmatchedStockError,
  type UpsertResult,
} from './store.js';

/** What a database folder supplies: a Kysely instance plus the few facts that differ per database. */
export interface DialectParts {
  db: Kysely<Database>;
  location: string;
  isUniqueViolation(error: unknown): boolean;
  /** Largest number of rows per multi-row insert, from the database's bound-parameter limit. */
  insertChunkRows: number;
  /**
   * Runs inside every writing transaction before its change notice is numbered, so that notices
   * commit in number order (PostgreSQL: a transaction advisory lock; SQLite writers are serial anyway).
   */
  beforeChange?(trx: Transaction<Database>): Promise<void>;
  /** Runs inside every writing transaction after its change notice is recorded (PostgreSQL: NOTIFY). */
  afterChange?(trx: Transaction<Database>): Promise<void>;
  /**
   * Runs first in every transaction that rewrites a dispensary's menu, so that two such transactions
   * take turns as they do on SQLite (PostgreSQL: the dispensary row FOR UPDATE; without it, two
   * concurrent full syncs would collide on the item keys instead of the last one winning).
   */
  lockDispensary?(trx: Transaction<Database>, dispensaryId: number): Promise<void>;
  /**
   * Runs the migrations so that processes starting together migrate one after the other (SQLite: Kysely
   * takes no migration lock there; PostgreSQL: Kysely's own lock is enough).
   */
  migrationLock?(migrate: () => Promise<void>): Promise<void>;
  /**
   * Runs `work`, a read of several statements, in a read-only transaction that sees one snapshot of the
   * database throughout, without waiting for writers or holding them up. Not `db.transaction()`:
   * PostgreSQL's default READ COMMITTED takes a new snapshot per statement (so: REPEATABLE READ), and
   * a SQLite transaction here begins IMMEDIATE, taking the write lock (so: a deferred BEGIN, whose
   * first read fixes the snapshot in WAL mode). `work` runs its queries with `readArrays`, valid only
   * until `work` settles.
   */
  readTransaction<T>(work: (readArrays: ReadArrays) => Promise<T>): Promise<T>;
}

/**
 * Runs a compiled select inside a read transaction and gives its rows as arrays of column values in
 * select order, as the driver returns them (no Kysely result plugins). Arrays cost about half as much
 * to build as row objects, which is most of the time of reading a large menu.
 */
export type ReadArrays = (query: CompiledQuery) => Promise<unknown[][]>;

/**
 * For a dialect's `readTransaction`: hands `work` a `readArrays` over `read` that refuses to run once
 * `work` has settled, when the transaction is over and a late query would run outside it.
 */
export async function withReadArrays<T>(
  read: ReadArrays,
  work: (readArrays: ReadArrays) => Promise<T>,
): Promise<T> {
  let open = true;
  try {
    return await work(async (query) => {
      if (!open) throw new Error('readArrays was called after its read transaction ended');
      return read(query);
    });
  } finally {
    open = false;
  }
}

/** The actor of writes that name none: the operator at the command line. */
const OPERATOR: Actor = 'cli';

const now = () => new Date().toISOString();

interface WriteRecord {
  kind: ChangeKind;
  dispensaryId: number | null;
  subject?: string;
  actor: Actor;
  action: string;
  detail: Record<string, unknown>;
}

const DISPENSARY_COLUMNS = ['id', 'name', 'created_at', 'updated_at'] as const;

/** The queries, written once in Kysely and run unchanged by every dialect. */
export class KyselyStore implements Store {
  readonly location: string;
  private readonly db: Kysely<Database>;

  constructor(private readonly parts: DialectParts) {
    this.db = parts.db;
    this.location = parts.location;
  }

  async migrate(): Promise<void> {
    const migrate = () => migrateToLatest(this.db);
    await (this.parts.migrationLock ? this.parts.migrationLock(migrate) : migrate());
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** Throws, with the reason, unless the database answers and every migration has run (for /readyz). */
  async checkReady(): Promise<void> {
    await sql`select 1`.execute(this.db);
    const pending = await pendingMigrations(this.db);
    if (pending.length > 0) throw new Error(`migrations not applied: ${pending.join(', ')}`);
  }

  /** The query builder itself, for whole-database tools (db copy); everything else uses the methods. */
  get database(): Kysely<Database> {
    return this.db;
  }

  /** Every write ends here, in its own transaction: a change notice for caches and an audit entry. */
  private async record(trx: Transaction<Database>, write: WriteRecord): Promise<void> {
    await this.parts.beforeChange?.(trx);
    const at = now();
    await trx
      .insertInto('changes')
      .values({ kind: write.kind, dispensary_id: write.dispensaryId, subject: write.subject ?? null, at })
      .execute();
    await trx
      .insertInto('audit_log')
      .values({
        at,
        actor: write.actor,
        dispensary_id: write.dispensaryId,
        action: write.action,
        detail: JSON.stringify(write.detail),
      })
      .execute();
    await this.parts.afterChange?.(trx);
  }

  private async uniquely<T>(work: () => Promise<T>, message: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (this.parts.isUniqueViolation(error)) throw new ConflictError(message);
      throw error;
    }
  }

  // Dispensaries and store information

  async createDispensary(name: string, tokenDigest: string, actor = OPERATOR): Promise<Dispensary> {
    return this.uniquely(
      () =>
        this.db.transaction().execute(async (trx) => {
          const at = now();
          const row = await trx
            .insertInto('dispensaries')
            .values({ name, token_digest: tokenDigest, created_at: at, updated_at: at, currency: 'USD' })
            .returning(DISPENSARY_COLUMNS)
            .executeTakeFirstOrThrow();
          const id = Number(row.id);
          await this.record(trx, {
            kind: 'dispensary',
            dispensaryId: id,
            actor,
            action: 'dispensary.create',
            detail: { name },
          });
          return toDispensary(row);
        }),
      'a dispensary with that token exists',
    );
  }

  async getDispensary(id: number): Promise<Dispensary | undefined> {
    const row = await this.db
      .selectFrom('dispensaries')
      .select(DISPENSARY_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toDispensary(row);
  }

  async findDispensaryByTokenDigest(digest: string): Promise<Dispensary | undefined> {
    const current = await this.db
      .selectFrom('dispensaries')
      .select(DISPENSARY_COLUMNS)
      .where('token_digest', '=', digest)
      .executeTakeFirst();
    if (current) return toDispensary(current);
    const previous = await this.db
      .selectFrom('dispensaries')
      .select([...DISPENSARY_COLUMNS, 'previous_token_expires_at'])
      .where('previous_token_digest', '=', digest)
      .where('previous_token_expires_at', '>', now())
      .executeTakeFirst();
    return previous && { ...toDispensary(previous), tokenExpiresAt: previous.previous_token_expires_at! };
  }

  async listDispensaries(): Promise<DispensarySummary[]> {
    const rows = await this.db
      .selectFrom('dispensaries as d')
      .leftJoin('items as i', 'i.dispensary_id', 'd.id')
      .select(({ fn }) => [
        'd.id',
        'd.name',
        'd.created_at',
        'd.updated_at',
        fn.count<number>('i.id').as('item_count'),
        fn.sum<number>('i.active').as('active_count'),
      ])
      .groupBy(['d.id', 'd.name', 'd.created_at', 'd.updated_at'])
      .orderBy('d.id')
      .execute();
    return rows.map((row) => ({
      ...toDispensary(row),
      itemCount: Number(row.item_count),
      activeItemCount: Number(row.active_count ?? 0),
    }));
  }

  async setDispensaryToken(
    id: number,
    digest: string,
    actor = OPERATOR,
    previousValidUntil?: string,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
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
      if (result.numUpdatedRows === 0n) return false;
      await this.record(trx, {
        kind: 'dispensary',
        dispensaryId: id,
        actor,
        action: 'dispensary.rotate_token',
        detail: { previous_valid_until: previousValidUntil ?? null },
      });
      return true;
    });
  }

  async removeDispensary(id: number, actor = OPERATOR): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.parts.lockDispensary?.(trx, id);
      // Deleted explicitly rather than by cascade so that no dialect's foreign-key setting matters.
      const prices = await trx.deleteFrom('price_entries').where('dispensary_id', '=', id).executeTakeFirst();
      const items = await trx.deleteFrom('items').where('dispensary_id', '=', id).executeTakeFirst();
      const result = await trx.deleteFrom('dispensaries').where('id', '=', id).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await this.record(trx, {
        kind: 'dispensary',
        dispensaryId: id,
        actor,
        action: 'dispensary.remove',
        detail: { items: Number(items.numDeletedRows), price_entries: Number(prices.numDeletedRows) },
      });
      return true;
    });
  }

  async getStoreInfo(dispensaryId: number): Promise<StoreInfo | undefined> {
    const row = await this.db
      .selectFrom('dispensaries')
      .select(STORE_INFO_COLUMNS)
      .where('id', '=', dispensaryId)
      .executeTakeFirst();
    return row && toStoreInfo(row);
  }

  async updateStoreInfo(
    dispensaryId: number,
    patch: StoreInfoPatch,
    actor = OPERATOR,
  ): Promise<StoreInfo | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('dispensaries')
        .set({ ...storeInfoColumns(patch), updated_at: now() })
        .where('id', '=', dispensaryId)
        .returning(STORE_INFO_COLUMNS)
        .executeTakeFirst();
      if (!row) return undefined;
      await this.record(trx, {
        kind: 'store',
        dispensaryId,
        actor,
        action: 'dispensary.update',
        detail: { fields: Object.keys(patch) },
      });
      return toStoreInfo(row);
    });
  }

  // Credentials

  async createCredential(
    username: string,
    passwordHash: string,
    actor = OPERATOR,
    limits: CredentialLimits = {},
  ): Promise<Credential> {
    return this.uniquely(
      () =>
        this.db.transaction().execute(async (trx) => {
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
          await this.record(trx, {
            kind: 'credential',
            dispensaryId: null,
            subject: username,
            actor,
            action: 'credential.issue',
            detail: {
              username,
              expires_at: limits.expiresAt ?? null,
              dispensary_ids: limits.dispensaryIds ?? null,
            },
          });
          return toCredential(row);
        }),
      `a credential named ${username} exists (usernames are never reused, even after revoke)`,
    );
  }

  async findCredential(username: string): Promise<Credential | undefined> {
    const row = await this.db
      .selectFrom('credentials')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirst();
    return row && toCredential(row);
  }

  async touchCredential(username: string, at: string): Promise<void> {
    await this.db
      .updateTable('credentials')
      .set({ last_used_at: at })
      .where('username', '=', username)
      .execute();
  }

  async listCredentials(): Promise<Credential[]> {
    const rows = await this.db.selectFrom('credentials').selectAll().orderBy('id').execute();
    return rows.map(toCredential);
  }

  async revokeCredential(username: string, actor = OPERATOR): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('credentials')
        .set({ revoked_at: now() })
        .where('username', '=', username)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.record(trx, {
        kind: 'credential',
        dispensaryId: null,
        subject: username,
        actor,
        action: 'credential.revoke',
        detail: { username },
      });
      return true;
    });
  }

  // Menus

  private async requireDispensary(trx: Transaction<Database>, dispensaryId: number): Promise<void> {
    await this.parts.lockDispensary?.(trx, dispensaryId);
    const exists = await trx
      .selectFrom('dispensaries')
      .select('id')
      .where('id', '=', dispensaryId)
      .executeTakeFirst();
    if (!exists) throw new ConflictError(`dispensary ${dispensaryId} does not exist`);
  }

  private async highestItemId(trx: Transaction<Database>, dispensaryId: number): Promise<number> {
    const row = await trx
      .selectFrom('items')
      .select(({ fn }) => fn.max<number>('id').as('max_id'))
      .where('dispensary_id', '=', dispensaryId)
      .executeTakeFirst();
    return Number(row?.max_id ?? 0);
  }

  private async previousPrices(
    trx: Transaction<Database>,
    dispensaryId: number,
    itemIds?: number[],
  ): Promise<Map<string, PreviousPrice>> {
    let query = trx
      .selectFrom('price_entries as p')
      .innerJoin('items as i', (join) =>
        join.onRef('i.dispensary_id', '=', 'p.dispensary_id').onRef('i.id', '=', 'p.item_id'),
      )
      .select(['p.item_id', 'p.unit', 'p.amount', 'p.price_cents', 'p.stock', 'p.updated_at', 'i.active'])
      .where('p.dispensary_id', '=', dispensaryId);
    if (itemIds) {
      if (itemIds.length === 0) return new Map();
      query = query.where('p.item_id', 'in', itemIds);
    }
    const rows = await query.execute();
    return new Map(
      rows.map((row) => [
        priceKey(Number(row.item_id), row.unit, Number(row.amount)),
        {
          priceCents: Number(row.price_cents),
          stock: row.stock === null ? null : Number(row.stock),
          updatedAt: row.updated_at,
          active: Number(row.active) === 1,
        },
      ]),
    );
  }

  private async insertItems(
    trx: Transaction<Database>,
    dispensaryId: number,
    menu: MenuItem[],
    previous: Map<string, PreviousPrice>,
  ): Promise<number> {
    const at = now();
    const items = menu.map((item) => itemRow(dispensaryId, item, at));
    const prices = menu.flatMap((item) => priceRows(dispensaryId, item, at, previous));
    for (const chunk of chunks(items, this.parts.insertChunkRows))
      await trx.insertInto('items').values(chunk).execute();
    for (const chunk of chunks(prices, this.parts.insertChunkRows)) {
      await trx.insertInto('price_entries').values(chunk).execute();
    }
    return prices.length;
  }

  async replaceMenu(dispensaryId: number, items: MenuItemInput[], actor = OPERATOR): Promise<MenuItem[]> {
    return this.db.transaction().execute(async (trx) => {
      await this.requireDispensary(trx, dispensaryId);
      // New ids continue after every id the dispensary has used or is importing, so no id is reused.
      const menu = assignIds(items, await this.highestItemId(trx, dispensaryId));
      const previous = await this.previousPrices(trx, dispensaryId);
      await trx.deleteFrom('price_entries').where('dispensary_id', '=', dispensaryId).execute();
      await trx.deleteFrom('items').where('dispensary_id', '=', dispensaryId).execute();
      const priceEntries = await this.insertItems(trx, dispensaryId, menu, previous);
      await this.record(trx, {
        kind: 'menu',
        dispensaryId,
        actor,
        action: 'menu.replace',
        detail: { items: menu.length, price_entries: priceEntries },
      });
      return menu;
    });
  }

  async upsertItems(dispensaryId: number, items: MenuItemInput[], actor = OPERATOR): Promise<UpsertResult> {
    return this.db.transaction().execute(async (trx) => {
      await this.requireDispensary(trx, dispensaryId);
      const menu = assignIds(items, await this.highestItemId(trx, dispensaryId));
      const ids = menu.map((item) => item.id);
      const existing = new Set<number>();
      for (const chunk of chunks(ids, this.parts.insertChunkRows)) {
        const rows = await trx
          .selectFrom('items')
          .select('id')
          .where('dispensary_id', '=', dispensaryId)
          .where('id', 'in', chunk)
          .execute();
        for (const row of rows) existing.add(Number(row.id));
      }
      const previous = await this.previousPrices(trx, dispensaryId, [...existing]);
      for (const chunk of chunks([...existing], this.parts.insertChunkRows)) {
        await trx
          .deleteFrom('price_entries')
          .where('dispensary_id', '=', dispensaryId)
          .where('item_id', 'in', chunk)
          .execute();
        await trx
          .deleteFrom('items')
          .where('dispensary_id', '=', dispensaryId)
          .where('id', 'in', chunk)
          .execute();
      }
      await this.insertItems(trx, dispensaryId, menu, previous);
      const result: UpsertResult = {
        created: ids.filter((id) => !existing.has(id)),
        updated: ids.filter((id) => existing.has(id)),
      };
      await this.record(trx, {
        kind: 'menu',
        dispensaryId,
        actor,
        action: 'menu.upsert',
        detail: { created: result.created.length, updated: result.updated.length },
      });
      return result;
    });
  }

  async deleteItem(dispensaryId: number, itemId: number, actor = OPERATOR): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.parts.lockDispensary?.(trx, dispensaryId);
      await trx
        .deleteFrom('price_entries')
        .where('dispensary_id', '=', dispensaryId)
        .where('item_id', '=', itemId)
        .execute();
      const result = await trx
        .deleteFrom('items')
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', itemId)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await this.record(trx, {
        kind: 'menu',
        dispensaryId,
        actor,
        action: 'menu.delete_item',
        detail: { item_id: itemId },
      });
      return true;
    });
  }

  async readMenu(dispensaryId: number): Promise<MenuItem[]> {
    // Two queries rather than a join, which would repeat every item column (long descriptions) on
    // each of its price rows; one read transaction, so that both see the same snapshot.
    const itemsQuery = this.db
      .selectFrom('items')
      .select(MENU_ITEM_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('id')
      .compile();
    const pricesQuery = this.db
      .selectFrom('price_entries')
      .select(MENU_PRICE_COLUMNS)
      .where('dispensary_id', '=', dispensaryId)
      .orderBy('item_id')
      .orderBy('position')
      .compile();
    const [items, prices] = await this.parts.readTransaction(async (readArrays) => {
      const items = await readArrays(itemsQuery);
      const prices = await readArrays(pricesQuery);
      return [items, prices] as const;
    });
    return foldMenu(items, prices);
  }

  async setItemActive(
    dispensaryId: number,
    itemId: number,
    active: boolean,
    actor = OPERATOR,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.parts.lockDispensary?.(trx, dispensaryId);
      const at = now();
      const result = await trx
        .updateTable('items')
        .set({ active: active ? 1 : 0, updated_at: at })
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', itemId)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      // Entries of an item that comes back must reach clients polling inventory with `since`.
      await trx
        .updateTable('price_entries')
        .set({ updated_at: at })
        .where('dispensary_id', '=', dispensaryId)
        .where('item_id', '=', itemId)
        .execute();
      await this.record(trx, {
        kind: 'menu',
        dispensaryId,
        actor,
        action: 'menu.set_active',
        detail: { item_id: itemId, active },
      });
      return true;
    });
  }

  async setStock(dispensaryId: number, updates: StockUpdate[], actor = OPERATOR): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await this.parts.lockDispensary?.(trx, dispensaryId);
      const at = now();
      const unmatched: number[] = [];
      for (const [index, update] of updates.entries()) {
        const result = await trx
          .updateTable('price_entries')
          .set((eb) => ({
            stock: update.stock,
            // The change time moves only when the level does, so `since` polls see real changes only.
            updated_at: eb
              .case()
              .when('stock', 'is distinct from', update.stock)
              .then(at)
              .else(eb.ref('updated_at'))
              .end(),
          }))
          .where('dispensary_id', '=', dispensaryId)
          .where('item_id', '=', update.itemId)
          .where('unit', '=', update.unit)
          .where('amount', '=', update.amount)
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) unmatched.push(index);
      }
      // Throwing rolls the whole batch back: either every stock level is set or none.
      if (unmatched.length > 0) throw new UnmatchedStockError(unmatched);
      await this.record(trx, {
        kind: 'menu',
        dispensaryId,
        actor,
        action: 'inventory.update',
        detail: { price_entries: updates.length },
      });
      return updates.length;
    });
  }

  // Admin keys, audit log, idempotency

  async createAdminKey(name: string, scope: string, keyDigest: string, actor = OPERATOR): Promise<AdminKey> {
    return this.uniquely(
      () =>
        this.db.transaction().execute(async (trx) => {
          const row = await trx
            .insertInto('admin_keys')
            .values({ name, scope, key_digest: keyDigest, created_at: now(), revoked_at: null })
            .returning(['id', 'name', 'scope', 'created_at', 'revoked_at'])
            .executeTakeFirstOrThrow();
          await this.record(trx, {
            kind: 'admin_key',
            dispensaryId: null,
            subject: name,
            actor,
            action: 'admin_key.create',
            detail: { name, scope },
          });
          return toAdminKey(row);
        }),
      `an admin key named ${name} exists`,
    );
  }

  async findAdminKey(keyDigest: string): Promise<AdminKey | undefined> {
    const row = await this.db
      .selectFrom('admin_keys')
      .select(['id', 'name', 'scope', 'created_at', 'revoked_at'])
      .where('key_digest', '=', keyDigest)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && toAdminKey(row);
  }

  async listAdminKeys(): Promise<AdminKey[]> {
    const rows = await this.db
      .selectFrom('admin_keys')
      .select(['id', 'name', 'scope', 'created_at', 'revoked_at'])
      .orderBy('id')
      .execute();
    return rows.map(toAdminKey);
  }

  async revokeAdminKey(name: string, actor = OPERATOR): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('admin_keys')
        .set({ revoked_at: now() })
        .where('name', '=', name)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.record(trx, {
        kind: 'admin_key',
        dispensaryId: null,
        subject: name,
        actor,
        action: 'admin_key.revoke',
        detail: { name },
      });
      return true;
    });
  }

  async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.db.selectFrom('audit_log').selectAll();
    if (query.dispensaryId !== undefined) select = select.where('dispensary_id', '=', query.dispensaryId);
    if (query.since !== undefined) select = select.where('at', '>', query.since);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.reverse().map(toAuditEntry);
  }

  async findIdempotentAnswer(
    adminKeyId: number,
    key: string,
    notBefore: string,
  ): Promise<IdempotentAnswer | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_digest', 'status', 'response', 'created_at'])
      .where('admin_key_id', '=', adminKeyId)
      .where('idempotency_key', '=', key)
      .where('created_at', '>=', notBefore)
      .executeTakeFirst();
    return (
      row && {
        requestDigest: row.request_digest,
        status: Number(row.status),
        response: row.response,
        createdAt: row.created_at,
      }
    );
  }

  async saveIdempotentAnswer(adminKeyId: number, key: string, answer: IdempotentAnswer): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // An expired record under the same key is replaced.
      await trx
        .deleteFrom('idempotency_keys')
        .where('admin_key_id', '=', adminKeyId)
        .where('idempotency_key', '=', key)
        .execute();
      await trx
        .insertInto('idempotency_keys')
        .values({
          admin_key_id: adminKeyId,
          idempotency_key: key,
          request_digest: answer.requestDigest,
          status: answer.status,
          response: answer.response,
          created_at: answer.createdAt,
        })
        .execute();
    });
  }

  async deleteIdempotentAnswersBefore(before: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
  }

  // Change notices

  async changesSince(seq: number): Promise<Change[]> {
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

  async lastChangeSeq(): Promise<number> {
    const row = await this.db
      .selectFrom('changes')
      .select(({ fn }) => fn.max<number>('seq').as('seq'))
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }
}

function* chunks<T>(rows: T[], size: number): Generator<T[]> {
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}
