import { PRODUCT_TYPES } from './item-vocabulary.js';

/*
 * How a published menu reads to people, shared by the server-rendered page and the board and embed
 * scripts (bundled for the browser: this file imports nothing that is not plain TypeScript).
 */

/** The fields of a published item these helpers read. */
export interface ShownItem {
  id: number;
  name: string;
  brand: string;
  product_type: string;
  product_subtype: string;
  thc: number | null;
  cbd: number | null;
  total_thc: number | null;
  total_cbd: number | null;
}

/** The types in the order menus list them (PRODUCT_TYPES), each with its items by name. */
export function groupByType<T extends ShownItem>(items: readonly T[]): { type: string; items: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const type of PRODUCT_TYPES) groups.set(type, []);
  for (const item of items) {
    const list = groups.get(item.product_type) ?? [];
    list.push(item);
    groups.set(item.product_type, list);
  }
  return [...groups]
    .filter(([, list]) => list.length > 0)
    .map(([type, list]) => ({ type, items: list.sort(byName) }));
}

export const byName = (a: ShownItem, b: ShownItem): number =>
  a.name.localeCompare(b.name, 'en') || a.id - b.id;

const FRACTIONS: Record<string, string> = { '0.125': '⅛', '0.25': '¼', '0.5': '½', '0.75': '¾' };
const UNIT_LABELS: Record<string, string> = { gram: 'g', ounce: 'oz', unit: 'each' };

/** "1 g", "3.5 g", "⅛ oz", "each", "2 units". */
export function formatAmount(amount: number, unit: string): string {
  if (unit === 'unit') return amount === 1 ? 'each' : `${amount} units`;
  const shown = FRACTIONS[String(amount)] ?? String(amount);
  return `${shown} ${UNIT_LABELS[unit] ?? unit}`;
}

const formats = new Map<string, Intl.NumberFormat>();

/** "$12.00", "CA$12.00", "€12.00": the price in the store's currency. */
export function formatPrice(price: number, currency: string): string {
  let format = formats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      format = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    formats.set(currency, format);
  }
  return format.format(price);
}

/** "THC 21.5% · CBD 0.1%", "THC 100 mg": what is known, empty when nothing is. */
export function formatPotency(item: ShownItem): string {
  const parts: string[] = [];
  if (item.thc !== null) parts.push(`THC ${item.thc}%`);
  else if (item.total_thc !== null) parts.push(`THC ${item.total_thc} mg`);
  if (item.cbd !== null) parts.push(`CBD ${item.cbd}%`);
  else if (item.total_cbd !== null) parts.push(`CBD ${item.total_cbd} mg`);
  return parts.join(' · ');
}

/** "Emerald Farms · Hybrid". */
export function formatBrandLine(item: ShownItem): string {
  return [item.brand, item.product_subtype].filter((part) => part !== '').join(' · ');
}
