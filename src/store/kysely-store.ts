import type { Kysely, Transaction } from 'kysely';
import type { MenuItem, MenuItemInput, ProductType, Unit } from '../domain/item.js';
import { migrateToLatest } from './migrations/index.js';
import type { Database } from './schema.js';
import {
  type Change,
  type ChangeKind,
  ConflictError,
  type Credential,
  type Dispensary,
  type DispensarySummary,
  type Store,
} from './store.js';

/** What a database folder supplies: a Kysely instance plus the few facts that differ per database. */
export interface DialectParts {
  db: Kysely<Database>;
  location: string;
  isUniqueViolation(error: unknown): boolean;
  /** Largest number of rows per multi-row insert, from the database's bound-parameter limit. */
  insertChunkRows: number;
}

const now = () => new Date().toISOString();

type DispensaryRow = { id: number; name: string; created_at: string; updated_at: string };

function toDispensary(row: DispensaryRow): Dispensary {
  return { id: Number(row.id), name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
}

function toCredential(row: {
  id: number;
  username: string;
  password_hash: string;
  created_at: string;
  revoked_at: string | null;
}): Credential {
  return {
    id: Number(row.id),
    username: row.username,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

const nullableNumber = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

/** The queries, written once in Kysely and run unchanged by every dialect. */
export class KyselyStore implements Store {
  readonly location: string;
  private readonly db: Kysely<Database>;

  constructor(private readonly parts: DialectParts) {
    this.db = parts.db;
    this.location = parts.location;
  }

  async migrate(): Promise<void> {
    await migrateToLatest(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  private async recordChange(
    trx: Transaction<Database>,
    kind: ChangeKind,
    dispensaryId: number | null,
    subject: string | null = null,
  ): Promise<void> {
    await trx
      .insertInto('changes')
      .values({ kind, dispensary_id: dispensaryId, subject, at: now() })
      .execute();
  }

  private async uniquely<T>(work: () => Promise<T>, message: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (this.parts.isUniqueViolation(error)) throw new ConflictError(message);
      throw error;
    }
  }

  async createDispensary(name: string, tokenDigest: string): Promise<Dispensary> {
    return this.uniquely(
      () =>
        this.db.transaction().execute(async (trx) => {
          const at = now();
          const row = await trx
            .insertInto('dispensaries')
            .values({ name, token_digest: tokenDigest, created_at: at, updated_at: at })
            .returning(['id', 'name', 'created_at', 'updated_at'])
            .executeTakeFirstOrThrow();
          await this.recordChange(trx, 'dispensary', Number(row.id));
          return toDispensary(row);
        }),
      'a dispensary with that token exists',
    );
  }

  async getDispensary(id: number): Promise<Dispensary | undefined> {
    const row = await this.db
      .selectFrom('dispensaries')
      .select(['id', 'name', 'created_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toDispensary(row);
  }

  async findDispensaryByTokenDigest(digest: string): Promise<Dispensary | undefined> {
    const row = await this.db
      .selectFrom('dispensaries')
      .select(['id', 'name', 'created_at', 'updated_at'])
      .where('token_digest', '=', digest)
      .executeTakeFirst();
    return row && toDispensary(row);
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

  async setDispensaryToken(id: number, digest: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('dispensaries')
        .set({ token_digest: digest, updated_at: now() })
        .where('id', '=', id)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.recordChange(trx, 'dispensary', id);
      return true;
    });
  }

  async removeDispensary(id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Deleted explicitly rather than by cascade so that no dialect's foreign-key setting matters.
      await trx.deleteFrom('price_entries').where('dispensary_id', '=', id).execute();
      await trx.deleteFrom('items').where('dispensary_id', '=', id).execute();
      const result = await trx.deleteFrom('dispensaries').where('id', '=', id).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await this.recordChange(trx, 'dispensary', id);
      return true;
    });
  }

  async createCredential(username: string, passwordHash: string): Promise<Credential> {
    return this.uniquely(
      () =>
        this.db.transaction().execute(async (trx) => {
          const row = await trx
            .insertInto('credentials')
            .values({ username, password_hash: passwordHash, created_at: now(), revoked_at: null })
            .returningAll()
            .executeTakeFirstOrThrow();
          await this.recordChange(trx, 'credential', null, username);
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

  async listCredentials(): Promise<Credential[]> {
    const rows = await this.db.selectFrom('credentials').selectAll().orderBy('id').execute();
    return rows.map(toCredential);
  }

  async revokeCredential(username: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('credentials')
        .set({ revoked_at: now() })
        .where('username', '=', username)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.recordChange(trx, 'credential', null, username);
      return true;
    });
  }

  async replaceMenu(dispensaryId: number, items: MenuItemInput[]): Promise<MenuItem[]> {
    return this.db.transaction().execute(async (trx) => {
      const exists = await trx
        .selectFrom('dispensaries')
        .select('id')
        .where('id', '=', dispensaryId)
        .executeTakeFirst();
      if (!exists) throw new ConflictError(`dispensary ${dispensaryId} does not exist`);
      const highest = await trx
        .selectFrom('items')
        .select(({ fn }) => fn.max<number>('id').as('max_id'))
        .where('dispensary_id', '=', dispensaryId)
        .executeTakeFirst();
      // New ids continue after every id the dispensary has used or is importing, so no id is reused.
      let nextId = Math.max(Number(highest?.max_id ?? 0), ...items.map((item) => item.id ?? 0)) + 1;
      const menu: MenuItem[] = items
        .map((item) => ({ ...item, id: item.id ?? nextId++ }))
        .sort((a, b) => a.id - b.id);

      await trx.deleteFrom('price_entries').where('dispensary_id', '=', dispensaryId).execute();
      await trx.deleteFrom('items').where('dispensary_id', '=', dispensaryId).execute();
      const at = now();
      const itemRows = menu.map((item) => ({
        dispensary_id: dispensaryId,
        id: item.id,
        name: item.name,
        brand: item.brand,
        product_type: item.productType,
        product_subtype: item.productSubtype,
        description: item.description,
        image: item.image,
        cbd: item.cbd,
        cbn: item.cbn,
        thc: item.thc,
        total_thc: item.totalThc,
        total_cbd: item.totalCbd,
        flavors: JSON.stringify(item.flavors),
        effects: JSON.stringify(item.effects),
        conditions: JSON.stringify(item.conditions),
        active: item.active ? 1 : 0,
        updated_at: at,
      }));
      const priceRows = menu.flatMap((item) =>
        item.prices.map((price, position) => ({
          dispensary_id: dispensaryId,
          item_id: item.id,
          position,
          unit: price.unit,
          amount: price.amount,
          price_cents: price.priceCents,
          stock: price.stock,
          updated_at: at,
        })),
      );
      for (const chunk of chunks(itemRows, this.parts.insertChunkRows)) {
        await trx.insertInto('items').values(chunk).execute();
      }
      for (const chunk of chunks(priceRows, this.parts.insertChunkRows)) {
        await trx.insertInto('price_entries').values(chunk).execute();
      }
      await this.recordChange(trx, 'menu', dispensaryId);
      return menu;
    });
  }

  async readMenu(dispensaryId: number): Promise<MenuItem[]> {
    // One statement, so that every database reads items and prices from the same snapshot.
    const rows = await this.db
      .selectFrom('items as i')
      .leftJoin('price_entries as p', (join) =>
        join.onRef('p.dispensary_id', '=', 'i.dispensary_id').onRef('p.item_id', '=', 'i.id'),
      )
      .select([
        'i.id',
        'i.name',
        'i.brand',
        'i.product_type',
        'i.product_subtype',
        'i.description',
        'i.image',
        'i.cbd',
        'i.cbn',
        'i.thc',
        'i.total_thc',
        'i.total_cbd',
        'i.flavors',
        'i.effects',
        'i.conditions',
        'i.active',
        'p.position',
        'p.unit',
        'p.amount',
        'p.price_cents',
        'p.stock',
      ])
      .where('i.dispensary_id', '=', dispensaryId)
      .orderBy('i.id')
      .orderBy('p.position')
      .execute();
    const menu: MenuItem[] = [];
    let current: MenuItem | undefined;
    for (const row of rows) {
      const id = Number(row.id);
      if (current?.id !== id) {
        current = {
          id,
          name: row.name,
          brand: row.brand,
          productType: row.product_type as ProductType,
          productSubtype: row.product_subtype,
          description: row.description,
          image: row.image,
          cbd: nullableNumber(row.cbd),
          cbn: nullableNumber(row.cbn),
          thc: nullableNumber(row.thc),
          totalThc: nullableNumber(row.total_thc),
          totalCbd: nullableNumber(row.total_cbd),
          flavors: JSON.parse(row.flavors) as string[],
          effects: JSON.parse(row.effects) as string[],
          conditions: JSON.parse(row.conditions) as string[],
          active: Number(row.active) === 1,
          prices: [],
        };
        menu.push(current);
      }
      if (row.position !== null && row.unit !== null && row.amount !== null && row.price_cents !== null) {
        current.prices.push({
          unit: row.unit as Unit,
          amount: Number(row.amount),
          priceCents: Number(row.price_cents),
          stock: nullableNumber(row.stock),
        });
      }
    }
    return menu;
  }

  async setItemActive(dispensaryId: number, itemId: number, active: boolean): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('items')
        .set({ active: active ? 1 : 0, updated_at: now() })
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', itemId)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await this.recordChange(trx, 'menu', dispensaryId);
      return true;
    });
  }

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
