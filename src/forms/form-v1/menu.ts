import type { MenuItem } from '../../domain/item.js';
import { refText } from '../../domain/item-ref.js';
import { type PricedItemRecord, pricedItemRecord } from '../../domain/priced-item.js';
import { ServiceError } from '../../services/errors.js';
import { cursorOf } from '../../services/menu-feed.js';
import type { PricedMenu } from '../../services/menu-reader.js';
import type { Representation, SnapshotView } from '../../services/menu-snapshots.js';
import { encodedOf, identityOf } from '../../services/snapshots/codings.js';
import { negotiateEncoding } from '../../services/snapshots/encoding.js';
import { andThen } from '../../util/maybe-promise.js';
import type { FormContext, FormMenu } from '../form.js';
import { MenuIndex, page } from './engine.js';
import { FIELD_NAMES, project, V1ItemSchema, V1MenuSchema } from './item.js';
import { V1_MENU_PARAMETERS } from './parameters.js';
import { type MenuQuery, parseMenuQuery } from './query.js';

/** Bodies smaller than this are sent uncompressed (as every snapshot is). */
const COMPRESS_MIN_BYTES = 1024;
const COMPRESSION = { gzipLevel: 6, brotliQuality: 5 };
/** Answers kept per menu, the most recent: a page asked again is sent without building it. */
const KEPT_ANSWERS = 256;

/**
 * Each priced menu's index and answers, for as long as the menu reader keeps that menu (until its next
 * change, a special's start or end that reprices an item included).
 */
interface Kept {
  index: MenuIndex;
  answers: Map<string, Representation | Promise<Representation>>;
}
const kept = new WeakMap<PricedMenu, Kept>();
/**
 * How each priced menu spells a change's item: one function per menu, so that what is spelled with it
 * (an event stream's frames) can be kept with it and shared by every stream of the dispensary.
 */
const changeItems = new WeakMap<PricedMenu, (item: MenuItem) => PricedItemRecord>();

function keptOf(menu: PricedMenu): Kept {
  let entry = kept.get(menu);
  if (!entry) {
    entry = { index: MenuIndex.of(menu.items, menu.pricing), answers: new Map() };
    kept.set(menu, entry);
  }
  return entry;
}

/** The query string of the next page: the same query with the next cursor. */
function nextLink(raw: Readonly<Record<string, unknown>>, cursor: string): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'cursor') continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
  }
  search.append('cursor', cursor);
  return `</v1/menu?${search.toString()}>; rel="next"`;
}

function identity(menu: PricedMenu, query: MenuQuery, raw: Readonly<Record<string, unknown>>) {
  const { rows, total, facets, next } = page(keptOf(menu).index, query);
  const data = query.fields
    ? rows.map((row) => JSON.stringify(project(row.record, query.fields!)))
    : rows.map((row) => row.json);
  const body = `{"data":[${data.join(',')}],"next_cursor":${JSON.stringify(next)},"total":${total},"facets":${JSON.stringify(facets)}}`;
  const answer = identityOf(Buffer.from(body), cursorOf(menu.items));
  return next === null ? answer : { ...answer, link: nextLink(raw, next) };
}

/**
 * Form v1's menu: every query answered from the index of the menu the menu reader keeps (no database
 * read while it is warm), each answer kept with that menu in the coding asked for.
 */
export function v1Menu({ menus }: FormContext): FormMenu {
  /** The answer kept with the menu for `key` in the coding asked for, made by `build` when not kept. */
  const answer =
    (key: string, build: (menu: PricedMenu) => Representation) =>
    (dispensaryId: number, acceptEncoding?: string | string[]) =>
      andThen(menus.priced(dispensaryId), (menu) => {
        const encoding = negotiateEncoding(acceptEncoding);
        const { answers } = keptOf(menu);
        const answerKey = `${encoding}|${key}`;
        const found = answers.get(answerKey);
        if (found) return found;
        const plain = build(menu);
        const coded: Representation | Promise<Representation> =
          encoding === 'identity' || plain.body.length < COMPRESS_MIN_BYTES
            ? plain
            : encodedOf(plain, encoding, COMPRESSION).then((encoded) =>
                plain.link === undefined ? encoded : { ...encoded, link: plain.link },
              );
        if (answers.size >= KEPT_ANSWERS) answers.delete(answers.keys().next().value!);
        answers.set(answerKey, coded);
        // A failed compression is not kept: the next read tries again.
        if (coded instanceof Promise) coded.catch(() => answers.delete(answerKey));
        return coded;
      });
  return {
    parameters: V1_MENU_PARAMETERS,
    note: 'Filter, search, sort and page with the query parameters; the answer is {"data", "next_cursor", "total", "facets"}, with a Link header to the next page. Each price entry carries its effective prices under the specials now.',
    schema: V1MenuSchema,
    itemSchema: V1ItemSchema,
    view: (parameters): SnapshotView => {
      const query = parseMenuQuery(parameters, FIELD_NAMES);
      return {
        name: 'v1:menu',
        read: answer(JSON.stringify(query), (menu) => identity(menu, query, parameters)),
      };
    },
    // The item's version the change recorded, priced as /v1/menu prices it now.
    changeItem: async (dispensaryId) => {
      const menu = await menus.priced(dispensaryId);
      let changeItem = changeItems.get(menu);
      if (!changeItem) {
        changeItem = (item) => pricedItemRecord(item, menu.pricing);
        changeItems.set(menu, changeItem);
      }
      return changeItem;
    },
    item: (ref): SnapshotView => ({
      name: 'v1:item',
      read: answer(`item|${refText(ref)}`, (menu) => {
        const row = keptOf(menu).index.find(ref);
        if (!row) {
          throw new ServiceError(
            'not_found',
            `There is no item ${refText(ref)} in this menu. List the items with GET /v1/menu.`,
          );
        }
        return identityOf(Buffer.from(row.json), cursorOf(menu.items));
      }),
    }),
  };
}
