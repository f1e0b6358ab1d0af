import {
  formatHeadlinePotency,
  formatPerGram,
  formatSize,
  formatSpecial,
  formatStrainType,
  formatTerpenes,
  labResultsUrl,
  type MenuType,
  shownPrice,
} from '../../src/domain/menu-details.js';
import { formatBrandLine, formatPotency, formatPrice } from '../../src/domain/menu-format.js';
import type { PublishedItem, PublishedStore } from '../../src/domain/published-menu.js';

/** An element with a class and text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  created.className = className;
  if (text !== undefined) created.textContent = text;
  return created;
}

/** How items are shown: the store's currency, zone and switches, the menu chosen, and whether links are. */
export interface ViewSettings {
  store: Pick<PublishedStore, 'currency' | 'timezone' | 'show_potency'>;
  menuType: MenuType;
  /** The board is a screen: no links on it. */
  links: boolean;
}

/** One price entry's parts: size, price, the regular price struck through, per gram, sold out or stock. */
interface PriceParts {
  size: string;
  cost: string;
  regular: string;
  perGram: string;
  tail: string;
}

function priceParts(item: PublishedItem, settings: ViewSettings): PriceParts[] {
  const { currency } = settings.store;
  return item.prices.map((entry) => {
    const shown = shownPrice(entry, settings.menuType);
    const stock = entry.stock !== undefined && entry.stock !== null ? `(${entry.stock} left)` : '';
    return {
      size: formatSize(entry),
      cost: formatPrice(shown.price, currency),
      regular: shown.regular === undefined ? '' : formatPrice(shown.regular, currency),
      perGram: formatPerGram(item, entry, shown.price, currency),
      tail: entry.in_stock ? stock : '(sold out)',
    };
  });
}

/**
 * One item's element, whose parts are updated in place on every change (a board that runs for days
 * does not grow): name, "Sold out", brand line, potency, strain and terpenes, special, prices, and in
 * the embed the lab results link. The prices are rebuilt only when what they say changed.
 */
export class ItemView {
  readonly root: HTMLLIElement;
  private readonly name = element('span', 'name');
  private readonly sold = element('span', 'sold', 'Sold out');
  private readonly brand = element('span', 'brand');
  private readonly potency = element('span', 'potency');
  private readonly details = element('span', 'details');
  private readonly special = element('span', 'special');
  private readonly prices = element('span', 'prices');
  private readonly lab = element('a', 'lab');
  private pricesKey = '';
  item!: PublishedItem;
  search = '';

  constructor(item: PublishedItem, settings: ViewSettings) {
    this.root = element('li', 'item');
    const head = element('span', 'head');
    head.append(this.name, this.sold);
    this.lab.rel = 'noopener';
    this.root.append(head, this.brand, this.potency, this.details, this.special, this.prices, this.lab);
    this.update(item, settings);
  }

  update(item: PublishedItem, settings: ViewSettings): void {
    this.item = item;
    this.root.dataset.id = String(item.id);
    setText(this.name, item.name);
    setText(this.brand, formatBrandLine(item));
    setText(this.potency, formatHeadlinePotency(item, formatPotency, settings.store.show_potency));
    setText(this.details, [formatStrainType(item), formatTerpenes(item)].filter(Boolean).join(' · '));
    setText(this.special, formatSpecial(item, settings.menuType, settings.store.timezone));
    this.setPrices(priceParts(item, settings));
    const lab = settings.links ? labResultsUrl(item) : null;
    if (lab) {
      if (this.lab.getAttribute('href') !== lab) this.lab.href = lab;
      setText(this.lab, 'Lab results');
      this.lab.setAttribute('aria-label', `Lab results for ${item.name}`);
    } else {
      this.lab.hidden = true;
      this.lab.removeAttribute('href');
    }
    this.sold.hidden = !item.sold_out;
    this.root.classList.toggle('sold-out', item.sold_out);
    this.search = `${item.name} ${item.brand} ${item.product_subtype} ${item.product_type}`.toLowerCase();
  }

  /** "1 g $12.00 · ⅛ oz · 3.5 g $32.00 ~~$40.00~~ $9.14/g (sold out)", the regular price in <del>. */
  private setPrices(parts: PriceParts[]): void {
    const key = JSON.stringify(parts);
    if (key === this.pricesKey) return;
    this.pricesKey = key;
    const nodes: (Node | string)[] = [];
    parts.forEach((part, index) => {
      if (index > 0) nodes.push(' · ');
      const entry = element('span', 'price');
      entry.append(`${part.size} `, element('span', 'cost', part.cost));
      if (part.regular) {
        // Few screen readers say that a price is struck through: the hidden words do.
        const was = element('del', 'regular');
        was.append(element('span', 'vh', 'Regular price '), part.regular);
        entry.append(' ', was);
      }
      if (part.perGram) entry.append(` ${part.perGram}`);
      if (part.tail) entry.append(` ${part.tail}`);
      nodes.push(entry);
    });
    this.prices.replaceChildren(...nodes);
  }
}

function setText(target: HTMLElement, text: string): void {
  if (target.textContent !== text) target.textContent = text;
  target.hidden = text === '';
}
