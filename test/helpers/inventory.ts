/** One entry of an /inventory answer, as both forms send it. */
export interface InventoryEntry {
  item_id: number;
  unit: string;
  amount: number;
  stock: number | null;
  in_stock: boolean;
  updated_at: string;
}

/** Values of `since` that are not RFC 3339 date-times, or not real times at all: each must get 400. */
export const NOT_RFC3339: readonly [string, string][] = [
  ['a word', 'yesterday'],
  ['an empty string', ''],
  ['a date without a time', '2026-11-25'],
  ['a time without an offset', '2026-11-25T12:00:00'],
  ['a time without seconds', '2026-11-25T12:00Z'],
  ['epoch seconds', '1795608000'],
  ['an HTTP date', 'Wed, 25 Nov 2026 12:00:00 GMT'],
  ['month 13', '2026-13-01T00:00:00Z'],
  ['minute 60', '2026-11-25T12:60:00Z'],
  ['February 30', '2026-02-30T00:00:00Z'],
  ['February 29 of a common year', '2026-02-29T00:00:00Z'],
  ['April 31', '2026-04-31T00:00:00Z'],
  ['hour 24', '2026-11-25T24:00:00Z'],
  ['an offset without a colon', '2026-11-25T12:00:00+0200'],
  ['an SQL fragment', "2026-11-25T12:00:00Z' OR '1'='1"],
];
