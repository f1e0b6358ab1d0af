import {
  formatAmount,
  formatBrandLine,
  formatPotency,
  formatPrice,
} from '../../src/domain/menu-format.js';
import type { PublishedItem } from '../../src/domain/published-menu.js';

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

/** The price entries as one line: "1 g $12.00 · ⅛ oz $38.00 (sold out)". */
export function pricesText(item: PublishedItem, currency: string): string {
  return item.prices
    .map((price) => {
      const text = `${formatAmount(price.amount, price.unit)} ${formatPrice(price.price, currency)}`;
      if (!price.in_stock) return `${text} (sold out)`;
      return price.stock !== undefined && price.stock !== null ? `${text} (${price.stock} left)` : text;
    })
    .join(' · ');
}

/**
 * One item's element, whose parts are updated in place on every change (no new nodes, so a board
 * that runs for days does not grow): name, "Sold out", brand line, potency, prices.
 */
export class ItemView {
  readonly root: HTMLLIElement;
  private readonly name = element('span', 'name');
  private readonly sold = element('span', 'sold', 'Sold out');
  private readonly brand = element('span', 'brand');
  private readonly potency = element('span', 'potency');
  private readonly prices = element('span', 'prices');
  item!: PublishedItem;
  search = '';

  constructor(item: PublishedItem, currency: string) {
    this.root = element('li', 'item');
    const head = element('span', 'head');
    head.append(this.name, this.sold);
    this.root.append(head, this.brand, this.potency, this.prices);
    this.update(item, currency);
  }

  update(item: PublishedItem, currency: string): void {
    this.item = item;
    this.root.dataset.id = String(item.id);
    setText(this.name, item.name);
    setText(this.brand, formatBrandLine(item));
    setText(this.potency, formatPotency(item));
    setText(this.prices, pricesText(item, currency));
    this.sold.hidden = !item.sold_out;
    this.root.classList.toggle('sold-out', item.sold_out);
    this.search = `${item.name} ${item.brand} ${item.product_subtype} ${item.product_type}`.toLowerCase();
  }
}

function setText(target: HTMLElement, text: string): void {
  if (target.textContent !== text) target.textContent = text;
  target.hidden = text === '';
}
