import { sql, type Transaction } from 'kysely';
import type { BatchStatements } from '../batches.js';
import { ENTRIES_KEY, FIELDS_JSON_VERSION } from '../item-rows.js';
import type { Database } from '../schema.js';

/**
 * PostgreSQL's batch statements: each column of a batch is bound as one array and taken apart by
 * unnest, so a statement's text is the same for 1 entry or 10,000 (parsed quickly, and planned with
 * the arrays' real lengths, as unnest tells the planner how many rows an array holds).
 */
export const postgresBatches: BatchStatements = {
  // One statement per table whatever the number of rows: a write of 5,000 rich items sent 5 item and
  // 25 price statements of many-row VALUES (up to 35,000 parameters each, parsed and planned anew),
  // about half of PostgreSQL's time in a full sync (bench/PROFILE.md, round fifteen).
  async insertRows(trx, table, rows) {
    const columns = Object.keys(rows[0] ?? {});
    if (columns.length === 0) return nothing;
    const arrays = await columnArrays(trx, table, columns, rows);
    const insert = sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
      select * from unnest(${sql.join(arrays)})`;
    return async () => {
      await insert.execute(trx);
    };
  },

  // The same arrays, joined to the table by its key: a changed item is written in place rather than
  // deleted and inserted again, which checked every foreign key of its rows anew (bench/PROFILE.md,
  // round twenty-one).
  async updateRows(trx, table, keys, rows) {
    const columns = Object.keys(rows[0] ?? {});
    if (columns.length === 0) return nothing;
    const arrays = await columnArrays(trx, table, columns, rows);
    const set = columns
      .filter((column) => !keys.includes(column))
      .map((column) => sql`${sql.ref(column)} = ${sql.ref(`v.${column}`)}`);
    const matched = keys.map((key) => sql`${sql.ref(`t.${key}`)} = ${sql.ref(`v.${key}`)}`);
    const update = sql`update ${sql.table(table)} as t set ${sql.join(set)}
      from unnest(${sql.join(arrays)}) as v(${sql.join(columns.map((column) => sql.ref(column)))})
      where ${sql.join(matched, sql` and `)}`;
    return async () => {
      await update.execute(trx);
    };
  },

  idList: (ids) => ({ op: '=', ids: sql<number>`any(${numberArray(ids)}::integer[])` }),

  async setStock(trx, dispensaryId, targets, at) {
    const itemIds = numberArray(targets.map((target) => target.itemId));
    // As one text PostgreSQL splits (columnArray): pg quoted and escaped each of the 6,680 units of a
    // large batch, building its array text piece by piece.
    const units = columnArray(
      'text',
      targets.map((target) => target.unit),
    );
    const amounts = numberArray(targets.map((target) => target.amount));
    const stocks = numberArray(targets.map((target) => target.stock));
    const changed = `{${targets.map((target) => (target.changed ? 't' : 'f')).join(',')}}`;
    // The same update as SQLite's (sqlite/batches.ts), but answering with one row
    // rather than one per entry: how many targets matched (v.n numbers them), and the items of the
    // entries whose change time is now `at`.
    const { rows } = await sql<{ matched: number; changed_items: number[] }>`
      with updated as (
        update price_entries as p
        set stock = v.stock,
            updated_at = case when v.changed or p.stock is distinct from v.stock then ${at} else p.updated_at end
        from unnest(${itemIds}::integer[], ${units}, ${amounts}::double precision[],
                    ${stocks}::double precision[], ${changed}::boolean[])
             with ordinality as v(item_id, unit, amount, stock, changed, n)
        where p.dispensary_id = ${dispensaryId}
          and p.item_id = v.item_id and p.unit = v.unit and p.amount = v.amount
        returning v.n, p.item_id, p.updated_at = ${at} as moved
      )
      select (select count(distinct n) from updated)::integer as matched,
             array(select distinct item_id from updated where moved) as changed_items`.execute(trx);
    // A select of two aggregates: always one row.
    const outcome = rows[0]!;
    if (outcome.matched === targets.length) return { changedItems: outcome.changed_items, unmatched: [] };
    // Some target matched nothing, and the write is rolled back: which ones, for the error.
    const missing = await sql<{ n: number }>`
      select v.n::integer as n
      from unnest(${itemIds}::integer[], ${units}, ${amounts}::double precision[])
           with ordinality as v(item_id, unit, amount, n)
      where not exists (
        select 1 from price_entries p
        where p.dispensary_id = ${dispensaryId}
          and p.item_id = v.item_id and p.unit = v.unit and p.amount = v.amount)`.execute(trx);
    return {
      changedItems: outcome.changed_items,
      unmatched: missing.rows.map((row) => targets[row.n - 1]!),
    };
  },

  async insertFeed(trx, dispensaryId, at, feed) {
    // The items (canonical JSON, or '' for none) go as one text, split by PostgreSQL at a character
    // that JSON text never holds as itself (JSON.stringify escapes every control character): no
    // escaping on the way, and no JSON parsing at either end (json_array_elements, used before,
    // parsed the whole text twice, once to bind it as json and once to split it). An item built on
    // its kept JSON goes as its entries' JSON alone, put after the kept JSON PostgreSQL holds (see
    // keptItem): a stock batch's feed sent 2.4 MB for 2,900 items, of which its price entries are
    // a fifth (bench/PROFILE.md, round twenty-nine).
    const items = feed.map((entry) => entry.keptEntries ?? entry.item ?? '').join(ITEM_SEPARATOR);
    // Items are joined for a feed with kept entries only: the join would read the dispensary's items
    // for any other feed too (a full sync's, a single item's).
    const kept = feed.some((entry) => entry.keptEntries !== undefined);
    const flags = `{${feed.map((entry) => (entry.keptEntries === undefined ? 'f' : 't')).join(',')}}`;
    const { rows } = await sql<{ seq: number; item_id: number | null }>`
      insert into menu_changes (dispensary_id, at, type, item_id, reason, item)
      select ${dispensaryId}::integer, ${at}::text, v.type, v.item_id, v.reason,
             ${kept ? sql`case when v.kept then ${keptItem} else nullif(v.item, '') end` : sql`nullif(v.item, '')`}
      from rows from (
             unnest(${columnArray(
               'text',
               feed.map((entry) => entry.type),
             )}),
             unnest(${numberArray(feed.map((entry) => entry.itemId))}::integer[]),
             unnest(${columnArray(
               'text',
               feed.map((entry) => entry.reason),
             )}),
             unnest(string_to_array(${items}::text, ${ITEM_SEPARATOR}::text)),
             unnest(${flags}::boolean[])
           ) with ordinality as v(type, item_id, reason, item, kept, n)
      ${kept ? keptJoin(dispensaryId) : sql``}
      -- Inserted, so numbered, in the order given.
      order by v.n
      returning seq, item_id`.execute(trx);
    return rows;
  },
};

/**
 * The feed's item of a row of insertFeed's `v` sent as its keptEntries (`v.item`), its item's kept
 * JSON as UTF-8 bytes `k.kept` (keptJoin): that JSON without its version and its closing brace, then
 * ENTRIES_KEY, the entries' JSON and the brace, as foldKeptJson built it in the process from the same
 * text (read in this write, which has not changed it since). Cut as bytes: substr of a text counts
 * its characters from the start, and took 1.4 µs an item where the bytes take a tenth of that.
 */
const keptItem = sql`convert_from(
    substring(k.kept from ${FIELDS_JSON_VERSION.length + 1}::integer
                     for octet_length(k.kept) - ${FIELDS_JSON_VERSION.length + 1}::integer)
    || convert_to(${ENTRIES_KEY}::text || v.item || '}', 'UTF8'), 'UTF8')`;

/** The kept JSON (`k.kept`, see keptItem) of the item of each row of insertFeed's `v` sent as its keptEntries. */
const keptJoin = (dispensaryId: number) => sql`
  left join items i on v.kept and i.dispensary_id = ${dispensaryId}::integer and i.id = v.item_id
  cross join lateral (select convert_to(i.fields_json, 'UTF8')) as k(kept)`;

/** The statement of no rows. */
const nothing = async () => {};

/** Between two feed items in the text insertFeed binds: the information separator two (record separator). */
const ITEM_SEPARATOR = '\u001e';
/** A null among the texts of a column insertRows binds as one text: the information separator one. */
const NULL_TEXT = '\u001f';

/** The type of each column of a table (`integer`, `text`, …), read once per table and process. */
const tableTypes = new Map<string, Promise<Map<string, string>>>();
function columnTypes(trx: Transaction<Database>, table: string): Promise<Map<string, string>> {
  let types = tableTypes.get(table);
  if (types === undefined) {
    types = sql<{ name: string; type: string }>`
      select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = ${table}::regclass and attnum > 0 and not attisdropped`
      .execute(trx)
      .then(({ rows }) => new Map(rows.map((row) => [row.name, row.type])));
    tableTypes.set(table, types);
    types.catch(() => tableTypes.delete(table));
  }
  return types;
}

/** Each of `columns` of `rows` as one bound array of the column's type (see columnArray). */
async function columnArrays(
  trx: Transaction<Database>,
  table: string,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
) {
  const types = await columnTypes(trx, table);
  return columns.map((column) => {
    const type = types.get(column);
    if (type === undefined) throw new Error(`${table} has no column ${column}`);
    return columnArray(
      type,
      rows.map((row) => row[column]),
    );
  });
}

/**
 * One column of rows as one bound array of its type. Numbers go as the text of an array (numberArray);
 * texts as one text that PostgreSQL splits, with a separator before each (string_to_array gives no
 * element for an empty text: the first, empty, element is dropped instead), so that pg does not
 * quote and escape every long JSON text as an array element. A column with a text holding either
 * separator is bound as an array that pg escapes.
 *
 * The joined text is encoded here, as the statement is made, into the UTF-8 bytes pg sends as they are
 * (a Buffer goes in binary format, which text's receive function reads as UTF-8 text): a write makes
 * its statements while the database runs the ones before (rewriteItems), and as a string pg flattened
 * and encoded each slice's 1.4 MB only once the statement before had finished, with the database
 * waiting for it (bench/PROFILE.md, round thirty).
 */
function columnArray(type: string, values: unknown[]) {
  if (type !== 'text') return sql`${numberArray(values as (number | null)[])}::${sql.raw(type)}[]`;
  const texts: unknown[] = [''];
  for (const value of values) {
    if (typeof value === 'string' && (value.includes(ITEM_SEPARATOR) || value.includes(NULL_TEXT)))
      return sql`${values}::text[]`;
    texts.push(value === null || value === undefined ? NULL_TEXT : value);
  }
  const joined = Buffer.from(texts.join(ITEM_SEPARATOR));
  return sql`(string_to_array(${joined}::text, ${ITEM_SEPARATOR}::text, ${NULL_TEXT}::text))[2:]`;
}

/**
 * Numbers (or nulls) as the text of a PostgreSQL array. Given a JS array, pg would quote and escape
 * every element (two regular expressions each, a few ms for a large batch); a number's own text
 * needs neither, and is read back as the same number.
 */
function numberArray(values: readonly (number | null)[]): string {
  return `{${values.map((value) => value ?? 'NULL').join(',')}}`;
}
