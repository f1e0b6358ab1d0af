import { strainTypeName } from '../../../domain/menu-details.js';
import { formatPrice } from '../../../domain/menu-format.js';
import type { PublishedStore } from '../../../domain/published-menu.js';
import { escapeHtml as e } from './html.js';
import type { PageQuery, PageResult, Span } from './menu-query.js';

/** The orders the page offers: v1's `sort` values, and the page's own by type then name (empty). */
const SORTS: readonly (readonly [string, string])[] = [
  ['', 'Type, then name'],
  ['name', 'Name'],
  ['price', 'Price, lowest first'],
  ['-price', 'Price, highest first'],
  ['price_per_gram', 'Price per gram'],
  ['-thc', 'THC, highest first'],
  ['relevance', 'Best match (search)'],
];

/** One box of a list filter, with how many of the items shown have that value. */
function box(name: string, value: string, label: string, count: number, checked: boolean): string {
  return `<label class="chip"><input type="checkbox" name="${name}" value="${e(value)}"${
    checked ? ' checked' : ''
  }> ${e(label)} <span class="n">${count}</span></label>`;
}

/** "From … to …" inputs, and the span of the items shown beside them. */
function range(
  name: string,
  legend: string,
  page: PageQuery,
  span: Span | null,
  show: (value: number) => string,
): string {
  const input = (end: 'min' | 'max', word: string) => {
    const value = page.params.get(`${name}_${end}`);
    return `<label>${word} <input name="${name}_${end}" type="number" min="0" step="any"${
      value === null ? '' : ` value="${e(value)}"`
    }></label>`;
  };
  return `<fieldset class="range"><legend>${legend}</legend>${input('min', 'from')} ${input('max', 'to')} <span class="n" id="${name}-shown">${
    span ? e(`${show(span.min)}–${show(span.max)} shown`) : 'none shown'
  }</span></fieldset>`;
}

/**
 * The filter form: a GET form whose every field is a v1 parameter, so that the address it makes is
 * the page's shareable link, and the server answers it without JavaScript. The counts are of the
 * items shown (the page's script refreshes them in place, keeping the focus). The THC range and sort
 * are offered when the store shows potency and some item has a THC figure in percent (v1's filter
 * leaves items without one out, so on a menu of none it could only empty the list).
 */
export function filterForm(
  store: PublishedStore,
  page: PageQuery,
  result: PageResult,
  switchable: boolean,
  showAll: string,
): string {
  const chosen = (name: string) => new Set(page.params.getAll(name).flatMap((value) => value.split(',')));
  const types = chosen('product_type');
  const strains = chosen('strain_type');
  const sort = page.params.get('sort') ?? '';
  const sorts = SORTS.filter(([value]) => (store.show_potency && result.thcKnown) || !value.endsWith('thc'));
  const flag = (name: string, label: string, count: number) =>
    box(name, 'true', label, count, page.params.get(name) === 'true');
  return `<form class="filter" method="get" role="search" aria-label="Filter the menu">
<div class="bar"><div class="field grow"><label for="q">Search</label>
<input id="q" name="q" type="search" value="${e(page.params.get('q') ?? '')}" placeholder="Name, brand, strain or effect" autocomplete="off"></div>
<div class="field"><label for="sort">Sort</label>
<select id="sort" name="sort">${sorts
    .map(([value, label]) => `<option value="${value}"${value === sort ? ' selected' : ''}>${label}</option>`)
    .join('')}</select></div>
<button type="submit">Show</button> <a class="reset" href="${showAll}"${
    [...page.params.keys()].some((name) => name !== 'menu_type') ? '' : ' hidden'
  }>Show all</a></div>
<div class="facets">
<fieldset><legend>Type</legend>${result.types
    .map(([type, count]) => box('product_type', type, type, count, types.has(type)))
    .join('')}</fieldset>
${
  result.strains.length > 0
    ? `<fieldset><legend>Strain type</legend>${result.strains
        .map(([type, count]) => box('strain_type', type, strainTypeName(type), count, strains.has(type)))
        .join('')}</fieldset>\n`
    : ''
}${store.show_potency && result.thcKnown ? `${range('thc', 'THC %', page, result.thc, (value) => `${value}%`)}\n` : ''}${range(
  'price',
  `Price (${e(store.currency)})`,
  page,
  result.price,
  (value) => formatPrice(value, store.currency),
)}
<fieldset><legend>Show only</legend>${flag('on_special', 'On special', result.onSpecial)}${flag(
    'in_stock',
    'In stock',
    result.inStock,
  )}</fieldset>
</div>
${switchable ? `<input type="hidden" name="menu_type" value="${page.menuType}">` : ''}</form>`;
}
