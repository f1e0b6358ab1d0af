import { formatAmount, formatPrice } from './menu-format.js';
import type { PublishedItem, PublishedPrice, PublishedStore } from './published-menu.js';

/*
 * How a published item's richer details read to people (lab results, sizes, specials, the medical
 * menu), shared by the server-rendered page and the board and embed scripts: bundled for the browser,
 * so this file imports nothing but types and plain helpers.
 */

export type MenuType = 'rec' | 'med';

export const MENU_TYPE_NAMES: Record<MenuType, string> = { rec: 'Adult-use', med: 'Medical' };

/** The menu shown: the one asked for when the store sells from it, else its first (adult-use first). */
export function menuTypeOf(store: Pick<PublishedStore, 'menu_types'>, asked: string | null): MenuType {
  const sold = store.menu_types;
  if ((asked === 'rec' || asked === 'med') && sold.includes(asked)) return asked;
  return sold.includes('rec') ? 'rec' : 'med';
}

/** What a price entry costs on a menu now: the price, the regular one under a special, the special. */
export interface ShownPrice {
  price: number;
  /** Only when a special lowers the price and the store shows regular prices. */
  regular: number | undefined;
  special: PublishedPrice['special'];
}

export function shownPrice(entry: PublishedPrice, menuType: MenuType): ShownPrice {
  if (menuType === 'med' && entry.med_price !== undefined)
    return { price: entry.med_price, regular: entry.regular_med_price, special: entry.med_special ?? null };
  return { price: entry.price, regular: entry.regular_price, special: entry.special };
}

const trim = (value: number): string => String(Math.round(value * 100) / 100);

/** "⅛ oz · 3.5 g", "Eighth · 3.5 g", "3.5 g", "each": the size as sold, and its grams. */
export function formatSize(
  entry: Pick<PublishedPrice, 'unit' | 'amount' | 'label' | 'net_weight_g'>,
): string {
  const named = entry.label === '' ? formatAmount(entry.amount, entry.unit) : entry.label;
  // An entry sold by the gram says its grams already ("½ g"), unless a label names it otherwise.
  const grams =
    entry.net_weight_g === null || (entry.unit === 'gram' && entry.label === '')
      ? ''
      : `${trim(entry.net_weight_g)} g`;
  return grams === '' || grams === named ? named : `${named} · ${grams}`;
}

/** "$10.86/g" for flower sold by weight beyond a gram (a gram's price is its own); "" otherwise. */
export function formatPerGram(
  item: Pick<PublishedItem, 'product_type'>,
  entry: PublishedPrice,
  price: number,
  currency: string,
): string {
  if (item.product_type !== 'Flower' || !entry.net_weight_g || entry.net_weight_g === 1) return '';
  return `${formatPrice(price / entry.net_weight_g, currency)}/g`;
}

type Headline = NonNullable<NonNullable<PublishedItem['potency']>['thc']>;

function headline(name: string, value: Headline | null): string {
  if (!value) return '';
  const amount = value.min === value.max ? trim(value.min) : `${trim(value.min)}–${trim(value.max)}`;
  const unit = value.unit === '%' ? '%' : ` ${value.unit}`;
  return `${name} ${amount}${unit}${value.basis === 'serving' ? ' per serving' : ''}`;
}

/**
 * "THC 24.1% · CBD 0.1%", "THC 10 mg": the headline potency from the lab results when there is one,
 * else the THC and CBD written; "" when the store does not show potency (published as null then).
 */
export function formatHeadlinePotency(
  item: PublishedItem,
  legacy: (item: PublishedItem) => string,
  showPotency: boolean,
): string {
  if (!showPotency) return '';
  const potency = item.potency;
  if (potency && (potency.thc || potency.cbd))
    return [headline('THC', potency.thc), headline('CBD', potency.cbd)].filter(Boolean).join(' · ');
  return legacy(item);
}

const GREEK: Record<string, string> = { alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ' };

/** "beta-myrcene" → "β-Myrcene", "p-cymene" → "p-Cymene", "delta-3-carene" → "δ-3-Carene". */
export function analyteName(code: string): string {
  const parts = code.split('-');
  const prefix =
    parts.length > 1 && (GREEK[parts[0]!] !== undefined || parts[0]!.length === 1) ? parts.shift()! : '';
  const name = parts.join('-');
  const shown = name.replace(/[a-z]/, (letter) => letter.toUpperCase());
  return prefix ? `${GREEK[prefix] ?? prefix}-${shown}` : shown;
}

/** The strongest few detected terpenes: "β-Myrcene 1.2% · Limonene 0.8% · Linalool 0.3%". */
export function formatTerpenes(item: Pick<PublishedItem, 'terpenes'>, count = 3): string {
  return item.terpenes
    .filter((terpene) => terpene.status === 'detected' && terpene.code !== 'total-terpenes')
    .sort((a, b) => (b.max ?? 0) - (a.max ?? 0))
    .slice(0, count)
    .map((terpene) => {
      const unit = terpene.unit === '%' ? '%' : ` ${terpene.unit}`;
      return `${analyteName(terpene.code)} ${trim(terpene.max ?? 0)}${unit}`;
    })
    .join(' · ');
}

/** "Indica-dominant", "High CBD"; "" without a strain type. */
export function formatStrainType(item: Pick<PublishedItem, 'strain'>): string {
  const type = item.strain?.type;
  return type ? strainTypeName(type) : '';
}

/** A strain type as people read it: "sativa_dominant" → "Sativa-dominant", "high_cbd" → "High CBD". */
export function strainTypeName(type: string): string {
  if (type === 'high_cbd') return 'High CBD';
  const words = type.replace('_dominant', '-dominant');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The certificate of analysis, when it is an http(s) URL (anything else is never linked). */
export function labResultsUrl(item: Pick<PublishedItem, 'batch'>): string | null {
  const url = item.batch?.coa_url;
  return url && /^https?:\/\/\S+$/i.test(url) ? url : null;
}

const endFormats = new Map<string, Intl.DateTimeFormat>();

/** "ends Sat, Nov 28, 6:00 PM" in the store's time zone (UTC, said so, without one). */
export function formatEnds(endsAt: string | null, timezone: string | null): string {
  if (endsAt === null) return '';
  const zone = timezone ?? 'UTC';
  let format = endFormats.get(zone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    };
    try {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: zone });
    } catch {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    }
    endFormats.set(zone, format);
  }
  return `ends ${format.format(new Date(endsAt))}${timezone ? '' : ' UTC'}`;
}

/** The special of an item's entries on a menu (the first that has one), as one line: "Special: 4/20 · ends …". */
export function formatSpecial(item: PublishedItem, menuType: MenuType, timezone: string | null): string {
  for (const entry of item.prices) {
    const { special } = shownPrice(entry, menuType);
    if (special)
      return [`Special: ${special.name}`, formatEnds(special.ends_at, timezone)].filter(Boolean).join(' · ');
  }
  return '';
}
