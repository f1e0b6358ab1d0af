import {
  formatAmount,
  formatBrandLine,
  formatPotency,
  formatPrice,
  groupByType,
  searchText,
} from '../../../domain/menu-format.js';
import { type OpenStatus, weekLines } from '../../../domain/opening-hours.js';
import type { PublishedItem, PublishedMenu } from '../../../domain/published-menu.js';
import { escapeHtml as e, PAGE_HEAD, scriptJson, typeAnchor } from './html.js';
import { structuredData } from './structured-data.js';

export interface MenuFilter {
  /** A product type, exactly as listed; empty for every type. */
  type: string;
  /** Words that must all appear in the name, brand, subtype or type; empty for every item. */
  q: string;
}

export const NO_FILTER: MenuFilter = { type: '', q: '' };

/** Items that pass the filter: the type, then every word of the search. */
export function filterItems(items: readonly PublishedItem[], filter: MenuFilter): PublishedItem[] {
  const words = filter.q.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter(
    (item) =>
      (filter.type === '' || item.product_type === filter.type) &&
      words.every((word) => searchText(item).includes(word)),
  );
}

function storeAddress(menu: PublishedMenu): string {
  const { store } = menu;
  const locality = [store.city, [store.state, store.postal_code].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  return [store.address, locality].filter(Boolean).join(', ');
}

function priceEntry(price: PublishedItem['prices'][number], currency: string): string {
  const stock =
    price.stock !== undefined && price.stock !== null && price.in_stock
      ? ` <span class="stock">${e(String(price.stock))} left</span>`
      : '';
  return `<li class="price${price.in_stock ? '' : ' sold-out'}"><span class="amount">${e(
    formatAmount(price.amount, price.unit),
  )}</span> <span class="cost">${e(formatPrice(price.price, currency))}</span>${
    price.in_stock ? stock : ' <span class="sold">Sold out</span>'
  }</li>`;
}

function itemCard(item: PublishedItem, currency: string): string {
  const brand = formatBrandLine(item);
  const potency = formatPotency(item);
  return `<li class="item${item.sold_out ? ' sold-out' : ''}" data-id="${item.id}" data-type="${e(
    item.product_type,
  )}" data-search="${e(searchText(item))}">
<div class="item-head"><h3>${e(item.name)}</h3>${item.sold_out ? '<span class="badge">Sold out</span>' : ''}</div>
${brand ? `<p class="brand">${e(brand)}</p>` : ''}${potency ? `<p class="potency">${e(potency)}</p>` : ''}${
  item.description ? `<p class="description">${e(item.description)}</p>` : ''
}
<ul class="prices">${item.prices.map((price) => priceEntry(price, currency)).join('')}</ul>
</li>`;
}

/**
 * The public menu page: complete without JavaScript (the filter is a GET form answered by the
 * server); /display/menu.js only filters as one types. `status` is computed by the caller at the time
 * of the request, in the store's time zone; a kept snapshot is keyed by it.
 */
export function renderMenuPage(menu: PublishedMenu, status: OpenStatus, filter: MenuFilter): string {
  const { store } = menu;
  const shown = filterItems(menu.items, filter);
  const groups = groupByType(shown);
  const allTypes = groupByType(menu.items).map((group) => group.type);
  const address = storeAddress(menu);
  const filtered = filter.type !== '' || filter.q !== '';
  const title = `${store.name}: menu`;
  const description = `${store.name}${address ? `, ${address}` : ''}: ${menu.items.length} products with prices and availability.`;
  const hours = store.hours
    ? `<details class="hours"><summary>Opening hours${
        store.timezone ? ` <span class="tz">(${e(store.timezone)})</span>` : ''
      }</summary><table><tbody>${weekLines(store.hours)
        .map(([day, time]) => `<tr><th scope="row">${e(day)}</th><td>${e(time)}</td></tr>`)
        .join('')}</tbody></table></details>`
    : '';
  return `${PAGE_HEAD}
<title>${e(title)}</title>
<meta name="description" content="${e(description)}">
<link rel="stylesheet" href="../display/menu.css">
<script type="application/ld+json">${scriptJson(structuredData(menu, `/m/${menu.slug}`))}</script>
<script src="../display/menu.js" defer></script>
</head>
<body>
<header class="store">
<h1>${e(store.name)}</h1>
${address ? `<p class="address">${e(address)}</p>` : ''}
<p class="status ${status.open === true ? 'open' : status.open === false ? 'closed' : 'unknown'}">${e(status.label)}</p>
${store.phone ? `<p class="phone"><a href="tel:${e(store.phone.replace(/[^+0-9]/g, ''))}">${e(store.phone)}</a></p>` : ''}
${hours}
</header>
<form class="filter" method="get" role="search" aria-label="Filter the menu">
<div class="field"><label for="type">Type</label>
<select id="type" name="type"><option value="">All types</option>${allTypes
    .map((type) => `<option${type === filter.type ? ' selected' : ''}>${e(type)}</option>`)
    .join('')}</select></div>
<div class="field grow"><label for="q">Search</label>
<input id="q" name="q" type="search" value="${e(filter.q)}" placeholder="Name, brand or strain" autocomplete="off"></div>
<button type="submit">Show</button>${filtered ? ` <a class="reset" href="${e(menu.slug)}">Show all</a>` : ''}
</form>
<main id="menu">
<p class="count" aria-live="polite">${shown.length} of ${menu.items.length} products</p>
${groups
  .map(
    (group) => `<section class="group" id="${typeAnchor(group.type)}" data-type="${e(group.type)}">
<h2>${e(group.type)}</h2>
<ul class="items">
${group.items.map((item) => itemCard(item, store.currency)).join('\n')}
</ul>
</section>`,
  )
  .join('\n')}
${groups.length === 0 ? `<p class="empty">Nothing matches. <a href="${e(menu.slug)}">Show the whole menu</a>.</p>` : ''}
</main>
<footer><p>Prices in ${e(store.currency)}. Updated ${e(menu.updated_at.slice(0, 16).replace('T', ' '))} UTC.${
    store.website
      ? ` <a href="${e(store.website)}" rel="noopener">${e(store.website.replace(/^https?:\/\//, ''))}</a>`
      : ''
  }</p></footer>
</body>
</html>
`;
}

/** The answer of every public URL of an unknown or unpublished dispensary. */
export function renderNotFound(): string {
  return `${PAGE_HEAD}
<title>Menu not found</title>
<meta name="robots" content="noindex">
<link rel="stylesheet" href="/display/menu.css">
</head>
<body>
<main class="not-found">
<h1>Menu not found</h1>
<p>There is no published menu at this address. The dispensary may have taken it down, or the address may be mistyped.</p>
</main>
</body>
</html>
`;
}
