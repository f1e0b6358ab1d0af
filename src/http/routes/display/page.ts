import {
  formatHeadlinePotency,
  formatPerGram,
  formatSize,
  formatSpecial,
  formatStrainType,
  formatTerpenes,
  labResultsUrl,
  MENU_TYPE_NAMES,
  type MenuType,
  shownPrice,
} from '../../../domain/menu-details.js';
import { formatBrandLine, formatPotency, formatPrice, groupByType } from '../../../domain/menu-format.js';
import { type OpenStatus, weekLines } from '../../../domain/opening-hours.js';
import type { PublishedItem, PublishedMenu, PublishedStore } from '../../../domain/published-menu.js';
import { filterForm } from './filter-form.js';
import { escapeHtml as e, PAGE_HEAD, scriptJson, typeAnchor } from './html.js';
import type { PageQuery, PageResult } from './menu-query.js';
import { structuredData } from './structured-data.js';

function storeAddress(menu: PublishedMenu): string {
  const { store } = menu;
  const locality = [store.city, [store.state, store.postal_code].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  return [store.address, locality].filter(Boolean).join(', ');
}

/** What the page shows on each menu the store sells: one part, or one per menu (CSS shows the chosen). */
interface Menus {
  types: MenuType[];
}

function perMenu(menus: Menus, part: (menuType: MenuType) => string): string {
  if (menus.types.length === 1) return part(menus.types[0]!);
  return menus.types
    .map((menuType) => {
      const text = part(menuType);
      return text === '' ? '' : `<span class="for-${menuType}">${text}</span>`;
    })
    .join('');
}

function cost(
  item: PublishedItem,
  entry: PublishedItem['prices'][number],
  menuType: MenuType,
  currency: string,
): string {
  const { price, regular } = shownPrice(entry, menuType);
  // A struck-through price is read out by few screen readers as such: the hidden words say what it is.
  const was =
    regular === undefined
      ? ''
      : ` <del class="regular"><span class="vh">Regular price </span>${e(formatPrice(regular, currency))}</del>`;
  const perGram = formatPerGram(item, entry, price, currency);
  return `<span class="cost">${e(formatPrice(price, currency))}</span>${was}${
    perGram ? ` <span class="per-gram">${e(perGram)}</span>` : ''
  }`;
}

function priceEntry(
  item: PublishedItem,
  price: PublishedItem['prices'][number],
  store: PublishedStore,
  menus: Menus,
): string {
  const stock =
    price.stock !== undefined && price.stock !== null && price.in_stock
      ? ` <span class="stock">${e(String(price.stock))} left</span>`
      : '';
  return `<li class="price${price.in_stock ? '' : ' sold-out'}"><span class="amount">${e(
    formatSize(price),
  )}</span> ${perMenu(menus, (menuType) => cost(item, price, menuType, store.currency))}${
    price.in_stock ? stock : ' <span class="sold">Sold out</span>'
  }</li>`;
}

function itemCard(item: PublishedItem, store: PublishedStore, menus: Menus): string {
  const brand = formatBrandLine(item);
  const potency = formatHeadlinePotency(item, formatPotency, store.show_potency);
  const details = [formatStrainType(item), formatTerpenes(item)].filter(Boolean).join(' · ');
  const special = perMenu(menus, (menuType) => e(formatSpecial(item, menuType, store.timezone)));
  const lab = labResultsUrl(item);
  return `<li class="item${item.sold_out ? ' sold-out' : ''}" data-id="${item.id}" data-type="${e(
    item.product_type,
  )}">
<div class="item-head"><h3>${e(item.name)}</h3>${item.sold_out ? '<span class="badge">Sold out</span>' : ''}</div>
${brand ? `<p class="brand">${e(brand)}</p>` : ''}${potency ? `<p class="potency">${e(potency)}</p>` : ''}${
  details ? `<p class="details">${e(details)}</p>` : ''
}${special ? `<p class="special">${special}</p>` : ''}${
  item.description ? `<p class="description">${e(item.description)}</p>` : ''
}
<ul class="prices">${item.prices.map((price) => priceEntry(item, price, store, menus)).join('')}</ul>${
    lab
      ? `\n<p class="lab"><a href="${e(lab)}" rel="noopener">Lab results<span class="vh"> for ${e(item.name)}</span></a></p>`
      : ''
  }
</li>`;
}

/** The page's address with the query's parameters, on the menu `menuType` (the first is the default). */
function pageLink(menu: PublishedMenu, params: URLSearchParams, menuType: MenuType, first: MenuType): string {
  const query = new URLSearchParams(params);
  query.delete('menu_type');
  if (menuType !== first) query.set('menu_type', menuType);
  const text = query.toString();
  return e(`${menu.slug}${text ? `?${text}` : ''}`);
}

/** The adult-use / medical switch: links the server answers, which the page's script follows in place. */
function menuSwitch(menu: PublishedMenu, page: PageQuery, menus: Menus): string {
  if (menus.types.length < 2) return '';
  const first = menus.types[0]!;
  return `<nav class="menu-types" aria-label="Prices">${menus.types
    .map(
      (menuType) =>
        `<a href="${pageLink(menu, page.params, menuType, first)}" data-menu="${menuType}"${
          menuType === page.menuType ? ' aria-current="page"' : ''
        }>${MENU_TYPE_NAMES[menuType]}</a>`,
    )
    .join('')}</nav>`;
}

/** The items: by type then name (the menu's own order), or one list in the order `sort` asked for. */
function listing(page: PageQuery, result: PageResult, store: PublishedStore, menus: Menus): string {
  const cards = (items: readonly PublishedItem[]) =>
    `<ul class="items">\n${items.map((item) => itemCard(item, store, menus)).join('\n')}\n</ul>`;
  if (page.query.sort !== undefined) {
    return result.items.length === 0
      ? ''
      : `<section class="group" id="results-list">\n<h2>Results</h2>\n${cards(result.items)}\n</section>`;
  }
  return groupByType(result.items)
    .map(
      (group) => `<section class="group" id="${typeAnchor(group.type)}" data-type="${e(group.type)}">
<h2>${e(group.type)}</h2>
${cards(group.items)}
</section>`,
    )
    .join('\n');
}

/**
 * The public menu page: complete without JavaScript (the filters are a GET form answered by the
 * server, with v1's parameters and engine: menu-query.ts); /display/menu.js only fetches the answer
 * of the form as it changes and puts it in place. `status` is computed by the caller at the time of
 * the request, in the store's time zone; a kept snapshot is keyed by it.
 */
export function renderMenuPage(
  menu: PublishedMenu,
  status: OpenStatus,
  page: PageQuery,
  result: PageResult,
): string {
  const { store } = menu;
  const address = storeAddress(menu);
  const menus: Menus = { types: (['rec', 'med'] as const).filter((type) => store.menu_types.includes(type)) };
  const first = menus.types[0] ?? 'rec';
  const showAll = pageLink(menu, new URLSearchParams(), page.menuType, first);
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
<script type="application/ld+json">${scriptJson(structuredData(menu, `/m/${menu.slug}`, page.menuType))}</script>
<script src="../display/menu.js" defer></script>
</head>
<body>
<header class="store">
<h1>${e(store.name)}</h1>
${address ? `<p class="address">${e(address)}</p>` : ''}
<p class="status ${status.open === true ? 'open' : status.open === false ? 'closed' : 'unknown'}">${e(status.label)}</p>
${store.phone ? `<p class="phone"><a href="tel:${e(store.phone.replace(/[^+0-9]/g, ''))}">${e(store.phone)}</a></p>` : ''}
${hours}
${menuSwitch(menu, page, menus)}
</header>
${filterForm(store, page, result, menus.types.length > 1, showAll)}
<main id="menu" class="menu-${page.menuType}">
<p class="count" aria-live="polite">${result.items.length} of ${menu.items.length} products</p>
<div id="results">
${page.problems.map((problem) => `<p class="problem" role="alert">${e(problem)} It was left out.</p>`).join('\n')}
${listing(page, result, store, menus)}
${result.items.length === 0 ? `<p class="empty">Nothing matches. <a href="${showAll}">Show the whole menu</a>.</p>` : ''}
</div>
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
