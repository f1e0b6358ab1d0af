import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { toCanonicalRecord } from '../../domain/canonical.js';
import type { FieldKind } from '../../domain/field-kinds.js';
import type { MenuItem } from '../../domain/item.js';
import { ITEM_FIELD_LIST, type NamedField, PRICE_FIELD_LIST } from '../../domain/item-schema.js';
import type { FieldAliases, FieldProblem } from '../../domain/validate-item.js';
import { readCell, writeCell } from './cells.js';

/** One row per price entry; item columns repeat on each row of the item (or stay empty after the first). */
const ITEM_COLUMNS = ITEM_FIELD_LIST.filter((field) => field.kind !== 'entries');
const COLUMNS: readonly NamedField[] = [...ITEM_COLUMNS, ...PRICE_FIELD_LIST];
export const CSV_COLUMNS = COLUMNS.map((field) => field.name);

const FIELD_OF = new Map<string, NamedField>(COLUMNS.map((field) => [field.name, field]));
const KIND_OF = new Map<string, FieldKind>(COLUMNS.map((field) => [field.name, field.kind]));
const PRICE_COLUMNS = new Set(PRICE_FIELD_LIST.map((field) => field.name));
const NUMBER_KINDS = new Set<FieldKind>(['number', 'measure', 'money']);
/** Lists in a CSV cell are separated by semicolons: commas are the column separator. */
const LIST_SEPARATOR = ';';

export interface CsvItems {
  /** Raw items (canonical names, typed values), ready for the same validation as JSON. */
  items: Record<string, unknown>[];
  /** Where each raw item began, for messages. */
  lines: number[];
  /** For each raw item, the line of each of its price entries, for messages. */
  priceLines: number[][];
  problems: FieldProblem[];
}

function cellValue(column: string, cell: string, line: number, problems: FieldProblem[]): unknown {
  if (cell === '') return undefined;
  const kind = KIND_OF.get(column);
  if (kind === 'id') {
    if (!/^\d+$/.test(cell))
      problems.push({ field: `line ${line}, ${column}`, message: 'must be a whole number' });
    return Number(cell);
  }
  if (kind !== undefined && NUMBER_KINDS.has(kind)) {
    const value = Number(cell);
    if (!Number.isFinite(value))
      problems.push({ field: `line ${line}, ${column}`, message: 'must be a number' });
    return value;
  }
  if (kind === 'list') {
    return cell
      .split(LIST_SEPARATOR)
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  if (kind === 'document') return readCell(FIELD_OF.get(column)!, cell, `line ${line}, ${column}`, problems);
  if (kind === 'flag') {
    const lower = cell.toLowerCase();
    if (['true', 'yes', '1'].includes(lower)) return true;
    if (['false', 'no', '0'].includes(lower)) return false;
    problems.push({ field: `line ${line}, ${column}`, message: 'must be true or false' });
    return undefined;
  }
  return cell;
}

/** Reads CSV text into raw items: rows with the same id (or, without ids, the same name in a row) form one item. */
export function readCsv(text: string, aliases: FieldAliases): CsvItems {
  const problems: FieldProblem[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((name) => aliases[name.trim()] ?? name.trim()),
      bom: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
    });
  } catch (error) {
    return {
      items: [],
      lines: [],
      priceLines: [],
      problems: [{ field: 'csv', message: (error as Error).message }],
    };
  }
  const header = records[0] ? Object.keys(records[0].record) : [];
  for (const column of header) {
    if (!KIND_OF.has(column)) {
      problems.push({
        field: `line 1, ${column}`,
        message: `is not a known column (known: ${CSV_COLUMNS.join(', ')})`,
      });
    }
  }
  if (problems.length > 0) return { items: [], lines: [], priceLines: [], problems };

  const items: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const priceLinesOf = new Map<Record<string, unknown>, number[]>();
  const byId = new Map<number, Record<string, unknown>>();
  let previous: Record<string, unknown> | undefined;
  for (const { record, info } of records) {
    const line = info.lines;
    const item: Record<string, unknown> = {};
    const price: Record<string, unknown> = {};
    for (const [column, cell] of Object.entries(record)) {
      const value = cellValue(column, cell, line, problems);
      if (value === undefined) continue;
      if (PRICE_COLUMNS.has(column)) price[column] = value;
      else item[column] = value;
    }
    const id = typeof item.id === 'number' ? item.id : undefined;
    const owner =
      id !== undefined
        ? byId.get(id)
        : previous && previous.id === undefined && previous.name === item.name
          ? previous
          : undefined;
    if (owner) {
      for (const [field, value] of Object.entries(item)) {
        if (JSON.stringify(owner[field]) !== JSON.stringify(value)) {
          problems.push({
            field: `line ${line}, ${field}`,
            message: 'differs from the first row of this item; leave it empty or repeat it',
          });
        }
      }
      if (Object.keys(price).length > 0) {
        (owner.prices as unknown[]).push(price);
        priceLinesOf.get(owner)!.push(line);
      }
      continue;
    }
    item.prices = Object.keys(price).length > 0 ? [price] : [];
    items.push(item);
    lines.push(line);
    priceLinesOf.set(item, Object.keys(price).length > 0 ? [line] : []);
    if (id !== undefined) byId.set(id, item);
    previous = item;
  }
  return { items, lines, priceLines: items.map((item) => priceLinesOf.get(item)!), problems };
}

/** A CSV cell of a canonical value: empty for null, a list's entries joined, a document in its cell syntax. */
function cell(field: NamedField, value: unknown): unknown {
  if (field.kind === 'document') return writeCell(field, value);
  return Array.isArray(value) ? value.join(LIST_SEPARATOR) : (value ?? '');
}

export function writeCsv(items: readonly MenuItem[]): string {
  const rows: unknown[][] = [];
  const noPrice = PRICE_FIELD_LIST.map(() => '');
  for (const item of items) {
    const record = toCanonicalRecord(item) as Record<string, unknown> & { prices: Record<string, unknown>[] };
    const itemCells = ITEM_COLUMNS.map((field) => cell(field, record[field.name]));
    if (record.prices.length === 0) rows.push([...itemCells, ...noPrice]);
    for (const price of record.prices) {
      rows.push([...itemCells, ...PRICE_FIELD_LIST.map((field) => cell(field, price[field.name]))]);
    }
  }
  return stringify(rows, {
    header: true,
    columns: CSV_COLUMNS,
    cast: { boolean: (value) => String(value) },
  });
}
