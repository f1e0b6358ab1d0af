/**
 * Price entries named so far in a batch, grouped by the item they belong to, each found among its
 * item's few by unit and amount: a batch of thousands of entries makes and hashes no text key per
 * entry (bench/PROFILE.md, round twenty-nine). `item` is whatever names the item (its id, or the
 * item_id as sent).
 */
export class EntriesByItem<Entry extends { readonly unit: unknown; readonly amount: unknown }> {
  private readonly byItem = new Map<unknown, Entry[]>();

  /** The entry of this item with this unit and amount added so far, if any. */
  find(item: unknown, unit: unknown, amount: unknown): Entry | undefined {
    return this.byItem.get(item)?.find((entry) => entry.unit === unit && entry.amount === amount);
  }

  add(item: unknown, entry: Entry): void {
    const ofItem = this.byItem.get(item);
    if (ofItem === undefined) this.byItem.set(item, [entry]);
    else ofItem.push(entry);
  }
}
