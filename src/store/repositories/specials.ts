import type { Transaction } from 'kysely';
import { MenuPricing, repricedItems } from '../../domain/special-pricing.js';
import type { Special, SpecialFields, SpecialTargetsRecord } from '../../domain/special-schema.js';
import type { Weekday } from '../../domain/store-info.js';
import { specialRecordOf } from '../../domain/validate-special.js';
import { type FeedEntry, upsertedEntry } from '../batches.js';
import type { Dialect } from '../dialect.js';
import type { ItemJson } from '../item-folds.js';
import type { Database, SpecialTable } from '../schema.js';
import type { Actor, DispensarySpecials, PreparedBoundary, SpecialRepository } from '../store.js';
import { type ChangeRecord, now, OPERATOR, type Writer, type Written } from '../write.js';
import { readItemJson, readPricing } from './menu-queries.js';

/** Who records a special boundary, in the audit log. */
export const BOUNDARY_ACTOR = 'specials-scheduler';

/** Recorded boundaries are kept this long: a boundary is claimed only around its instant. */
const BOUNDARY_KEPT_MS = 7 * 86_400_000;

type SpecialRow = Omit<SpecialTable, 'id'> & { id: number };
type SpecialValues = Omit<SpecialTable, 'id' | 'dispensary_id' | 'created_at'>;

function toSpecial(row: SpecialRow): Special {
  const targets = JSON.parse(row.applies_to) as SpecialTargetsRecord;
  return {
    id: Number(row.id),
    dispensaryId: Number(row.dispensary_id),
    name: row.name,
    description: row.description,
    kind: row.kind as Special['kind'],
    valueHundredths: Number(row.value_hundredths),
    appliesTo: {
      itemIds: targets.item_ids ?? [],
      externalIds: targets.external_ids ?? [],
      brands: targets.brands ?? [],
      productTypes: targets.product_types ?? [],
      tags: targets.tags ?? [],
    },
    menuType: row.menu_type as Special['menuType'],
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    daysOfWeek: row.days_of_week === null ? null : (JSON.parse(row.days_of_week) as Weekday[]),
    dailyStart: row.daily_start,
    dailyEnd: row.daily_end,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function valuesOf(fields: SpecialFields, at: string): SpecialValues {
  // The record's spelling, as the sync API shows it; the table keeps the value in hundredths and
  // the lists as JSON text.
  const { value: _inUnits, applies_to: appliesTo, days_of_week: days, ...same } = specialRecordOf(fields);
  return {
    ...same,
    value_hundredths: fields.valueHundredths,
    applies_to: JSON.stringify(appliesTo),
    days_of_week: days === null ? null : JSON.stringify(days),
    updated_at: at,
  };
}

/** Each dispensary's specials; their writes and boundaries record the items they reprice. */
export class Specials implements SpecialRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async create(
    dispensaryId: number,
    fields: SpecialFields,
    actor: Actor = OPERATOR,
  ): Promise<Special | undefined> {
    return this.inDispensary(dispensaryId, actor, undefined, async (trx, zone, before) => {
      const at = now();
      const row = await trx
        .insertInto('specials')
        .values({ dispensary_id: dispensaryId, created_at: at, ...valuesOf(fields, at) })
        .returningAll()
        .executeTakeFirstOrThrow();
      const special = toSpecial(row);
      const feed = (await this.repriced(trx, dispensaryId, zone, before, [...before, special])).map(
        upsertedEntry,
      );
      return {
        result: special,
        change: specialChange(dispensaryId, 'special.create', special, feed),
      };
    });
  }

  async get(dispensaryId: number, id: number): Promise<Special | undefined> {
    const row = await this.dialect.db
      .selectFrom('specials')
      .selectAll()
      .where('dispensary_id', '=', dispensaryId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toSpecial(row);
  }

  list(dispensaryId: number): Promise<Special[]> {
    return specialsOf(this.dialect.db, dispensaryId);
  }

  async update(
    dispensaryId: number,
    id: number,
    fields: SpecialFields,
    actor: Actor = OPERATOR,
  ): Promise<Special | undefined> {
    return this.inDispensary(dispensaryId, actor, undefined, async (trx, zone, before) => {
      if (!before.some((special) => special.id === id)) return { result: undefined };
      const row = await trx
        .updateTable('specials')
        .set(valuesOf(fields, now()))
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const special = toSpecial(row);
      const after = before.map((other) => (other.id === id ? special : other));
      const feed = (await this.repriced(trx, dispensaryId, zone, before, after)).map(upsertedEntry);
      return { result: special, change: specialChange(dispensaryId, 'special.update', special, feed) };
    });
  }

  async remove(dispensaryId: number, id: number, actor: Actor = OPERATOR): Promise<boolean> {
    return this.inDispensary(dispensaryId, actor, false, async (trx, zone, before) => {
      const special = before.find((other) => other.id === id);
      if (!special) return { result: false };
      await trx
        .deleteFrom('specials')
        .where('dispensary_id', '=', dispensaryId)
        .where('id', '=', id)
        .execute();
      const after = before.filter((other) => other.id !== id);
      const feed = (await this.repriced(trx, dispensaryId, zone, before, after)).map(upsertedEntry);
      return { result: true, change: specialChange(dispensaryId, 'special.remove', special, feed) };
    });
  }

  async ofDispensary(dispensaryId: number): Promise<DispensarySpecials | undefined> {
    const zone = await timezoneOf(this.dialect.db, dispensaryId);
    if (zone === undefined) return undefined;
    return { dispensaryId, timezone: zone, specials: await specialsOf(this.dialect.db, dispensaryId) };
  }

  async everyDispensary(): Promise<DispensarySpecials[]> {
    const rows = await this.dialect.db
      .selectFrom('specials as s')
      .innerJoin('dispensaries as d', 'd.id', 's.dispensary_id')
      .selectAll('s')
      .select('d.timezone')
      .orderBy('s.dispensary_id')
      .orderBy('s.id')
      .execute();
    const byDispensary = new Map<number, DispensarySpecials>();
    for (const row of rows) {
      const dispensaryId = Number(row.dispensary_id);
      let entry = byDispensary.get(dispensaryId);
      if (!entry) {
        entry = { dispensaryId, timezone: row.timezone, specials: [] };
        byDispensary.set(dispensaryId, entry);
      }
      entry.specials.push(toSpecial(row));
    }
    return [...byDispensary.values()];
  }

  async recordBoundary(
    dispensaryId: number,
    at: string,
    actor: Actor = BOUNDARY_ACTOR,
    prepared?: PreparedBoundary,
  ): Promise<number | undefined> {
    return this.inDispensary(dispensaryId, actor, undefined, async (trx, zone, specials) => {
      // The claim: a second process inserting the same key waits for this transaction, then inserts nothing.
      const claimed = await trx
        .insertInto('special_boundaries')
        .values({ dispensary_id: dispensaryId, at, recorded_at: now() })
        .onConflict((conflict) => conflict.columns(['dispensary_id', 'at']).doNothing())
        .returning('dispensary_id')
        .executeTakeFirst();
      if (!claimed) return { result: undefined };
      const expired = new Date(Date.parse(at) - BOUNDARY_KEPT_MS).toISOString();
      await trx
        .deleteFrom('special_boundaries')
        .where('dispensary_id', '=', dispensaryId)
        .where('at', '<', expired)
        .execute();
      const instant = Date.parse(at);
      const items =
        prepared?.dispensaryId === dispensaryId &&
        prepared.at === at &&
        !(await changedSince(trx, dispensaryId, prepared.seq))
          ? prepared.items
          : await this.repriced(trx, dispensaryId, zone, specials, specials, instant - 1, instant);
      if (items.length === 0) return { result: 0 };
      return {
        result: items.length,
        change: {
          kind: 'menu',
          dispensaryId,
          action: 'special.boundary',
          detail: { at, items: items.length },
          feed: items.map(upsertedEntry),
        },
      };
    });
  }

  async prepareBoundary(dispensaryId: number, at: string): Promise<PreparedBoundary | undefined> {
    // A transaction that only reads: the menu's queries read rows as arrays on a transaction's connection.
    return this.dialect.db.transaction().execute(async (trx) => {
      // Read before the rest: a change committed after this read has a higher number (changes commit in
      // the order of their numbers: Dialect.beforeChange), so recordBoundary sees whatever came after.
      const seq = await newestChange(trx);
      const zone = await timezoneOf(trx, dispensaryId);
      if (zone === undefined) return undefined;
      const specials = await specialsOf(trx, dispensaryId);
      const instant = Date.parse(at);
      const items = await this.repriced(trx, dispensaryId, zone, specials, specials, instant - 1, instant);
      return { dispensaryId, at, seq, items };
    });
  }

  /**
   * A write of a dispensary's specials, in its turn, with its time zone (the specials' times are read in
   * it) and its specials as they are before the write; for a dispensary that is not there it changes
   * nothing and answers `missing`.
   */
  private inDispensary<T>(
    dispensaryId: number,
    actor: Actor,
    missing: T,
    work: (trx: Transaction<Database>, zone: string | null, before: Special[]) => Promise<Written<T>>,
  ): Promise<T> {
    return this.writer.write({ actor, lockDispensary: dispensaryId }, async (trx) => {
      const zone = await timezoneOf(trx, dispensaryId);
      return zone === undefined ? { result: missing } : work(trx, zone, await specialsOf(trx, dispensaryId));
    });
  }

  /**
   * The active items whose pricing differs between the specials `before` (at `beforeAt`) and `after`
   * (at `afterAt`), as the feed records them: each item as it is, so that followers read its price again.
   */
  private async repriced(
    trx: Transaction<Database>,
    dispensaryId: number,
    zone: string | null,
    before: readonly Special[],
    after: readonly Special[],
    beforeAt = Date.now(),
    afterAt = beforeAt,
  ): Promise<ItemJson[]> {
    const pricingBefore = new MenuPricing(before, zone, beforeAt);
    const pricingAfter = new MenuPricing(after, zone, afterAt);
    // Nothing in force either side: no price can differ, and the menu need not be read.
    if (pricingBefore.specialIds.length === 0 && pricingAfter.specialIds.length === 0) return [];
    const ids = repricedItems(
      await readPricing(this.dialect, trx, dispensaryId, pricingBefore.mayDifferFrom(pricingAfter)),
      pricingBefore,
      pricingAfter,
    );
    return readItemJson(this.dialect, trx, dispensaryId, ids);
  }
}

type Reader = Pick<Transaction<Database>, 'selectFrom'>;

/** The number of the newest change of the store (0: none yet). */
async function newestChange(db: Reader): Promise<number> {
  const row = await db
    .selectFrom('changes')
    .select(({ fn }) => fn.max<number>('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** Whether a change of the dispensary (or of every dispensary) was recorded after change `seq`. */
async function changedSince(db: Reader, dispensaryId: number, seq: number): Promise<boolean> {
  const row = await db
    .selectFrom('changes')
    .select('seq')
    .where('seq', '>', seq)
    .where((where) =>
      where.or([where('dispensary_id', '=', dispensaryId), where('dispensary_id', 'is', null)]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The store's time zone (null: none set), or undefined when there is no such dispensary. */
async function timezoneOf(db: Reader, dispensaryId: number): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('dispensaries')
    .select('timezone')
    .where('id', '=', dispensaryId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.timezone;
}

async function specialsOf(db: Reader, dispensaryId: number): Promise<Special[]> {
  const rows = await db
    .selectFrom('specials')
    .selectAll()
    .where('dispensary_id', '=', dispensaryId)
    .orderBy('id')
    .execute();
  return rows.map(toSpecial);
}

function specialChange(
  dispensaryId: number,
  action: string,
  special: Special,
  feed: FeedEntry[],
): ChangeRecord {
  return {
    kind: 'menu',
    dispensaryId,
    action,
    detail: { special_id: special.id, name: special.name, items_repriced: feed.length },
    feed,
  };
}
