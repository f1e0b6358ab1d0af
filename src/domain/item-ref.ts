/**
 * How a request names one item: its id, or `ext:` and the point of sale's id (its external_id), so
 * that a point of sale can change, delete and restock items without keeping our ids.
 */
export type ItemRef = { id: number } | { externalId: string };

/** The prefix of an item named by its external_id (`ext:pos-10442`); the read forms spell it the same. */
export const EXTERNAL_REF_PREFIX = 'ext:';

/** `ext:` and an external_id, as a path or a stock update's item_id spells it. */
export const EXTERNAL_REF_PATTERN = '^ext:.{1,100}$';

/** The reference a text names, or undefined when it is neither an id nor `ext:` and an external_id. */
export function parseItemRef(text: string): ItemRef | undefined {
  if (text.startsWith(EXTERNAL_REF_PREFIX)) {
    const externalId = text.slice(EXTERNAL_REF_PREFIX.length).trim();
    return externalId === '' ? undefined : { externalId };
  }
  return /^[1-9][0-9]{0,9}$/.test(text) ? { id: Number(text) } : undefined;
}

/** The reference as a request spells it: `5` or `ext:pos-10442`. */
export function refText(ref: ItemRef): string {
  return 'id' in ref ? String(ref.id) : `${EXTERNAL_REF_PREFIX}${ref.externalId}`;
}
