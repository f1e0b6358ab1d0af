import { refText } from '../../domain/item-ref.js';
import { ServiceError } from '../../services/errors.js';
import { cursorOf } from '../../services/menu-feed.js';
import type { PricedMenu } from '../../services/menu-reader.js';
import type { Representation, SnapshotView } from '../../services/menu-snapshots.js';
import { encodedNow, encodedOf, identityOf, taggedIdentity } from '../../services/snapshots/codings.js';
import { type Encoding, negotiateEncoding } from '../../services/snapshots/encoding.js';
import type { FormContext, FormMenu } from '../form.js';
import { decodeCursor, type Position } from './cursor.js';
import { type BuiltFrom, MenuIndex, orderPrint, page } from './engine.js';
import { FIELD_NAMES, project, V1ItemSchema, V1MenuSchema } from './item.js';
import { itemJson, pageBody, pageRest, taggedPage } from './page-body.js';
import { V1_MENU_PARAMETERS } from './parameters.js';
import { readOrAskPeers } from './peer-versions.js';
import { PINNED_TTL_MS, PinnedMenus } from './pinned-menus.js';
import { type MenuQuery, orderKey, parseMenuQuery } from './query.js';

/** Bodies smaller than this are sent uncompressed (as every snapshot is). */
const COMPRESS_MIN_BYTES = 1024;
const COMPRESSION = { gzipLevel: 6, brotliQuality: 5 };
/**
 * A search's answer (`q`) is seldom asked again, so it is compressed for less CPU: on the bench's
 * searches gzip level 3 and brotli quality 3 take 37-49 and 42-55 % of the CPU of level 6 and quality
 * 5, for 22 and 27 % more bytes; brotli 3 stays smaller than gzip 3 (bench/v1-search.ts; bench/PROFILE.md,
 * round sixteen).
 */
const SEARCH_COMPRESSION = { gzipLevel: 3, brotliQuality: 3 };
/**
 * Bodies up to this size are compressed on the main thread (compressNow), larger ones off it: the pool's
 * hand-off cost a search about 150 µs of CPU (a quarter of it), and made every first read of a query
 * wait a turn more. At this size the event loop waits about 1 ms (gzip level 6) for it; a page of 100
 * whole items is 60-120 KB, of 1,000 items ten times that (bench/PROFILE.md, round nineteen).
 */
const COMPRESS_NOW_MAX_BYTES = 128 * 1024;
/** Answers kept per menu, the most recent: a page asked again is sent without building it. */
const KEPT_ANSWERS = 256;

/**
 * Each priced menu's index and answers, for as long as the menu reader keeps that menu (until its next
 * change, a special's start or end that reprices an item included), or a paging pins it (not the items:
 * the index holds each item's record).
 */
interface Kept {
  index: MenuIndex;
  answers: Map<string, Representation | Promise<Representation>>;
  /** The feed cursor the menu was read at (its Menu-Cursor), which names the version in cursors. */
  cursor: number | undefined;
}
const kept = new WeakMap<PricedMenu, Kept>();
/**
 * The index and answers kept with the menu, made when not kept yet; `latest` holds each dispensary's
 * menu version indexed last (by its lineage, which goes with the dispensary), whose unchanged items'
 * rows the next version's index keeps.
 */
function keptOf(latest: WeakMap<object, BuiltFrom>, menu: PricedMenu): Kept {
  let entry = kept.get(menu);
  if (!entry) {
    const index = MenuIndex.of(menu.items, menu.pricing, latest.get(menu.lineage));
    latest.set(menu.lineage, { items: menu.items, pricing: menu.pricing, index });
    entry = {
      index,
      answers: new Map(),
      cursor: cursorOf(menu.items),
    };
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

/** A menu's version: the feed cursor it was read at (the same in every process that read it then). */
const versionOf = (menu: Kept): number => menu.cursor ?? 0;

function identity(
  menu: Kept,
  query: MenuQuery,
  after: Position | undefined,
  raw: Readonly<Record<string, unknown>>,
) {
  const found = page(menu.index, query, versionOf(menu), after);
  const { rows, next } = found;
  const rest = pageRest(found);
  // Whole items: the rows' JSON and tags, kept. A sparse fieldset's are made here.
  const answer = query.fields
    ? identityOf(
        pageBody(
          rows.map((row) => itemJson(JSON.stringify(project(row.record, query.fields!)))),
          rest,
        ),
        menu.cursor,
      )
    : taggedPage(
        rows.map((row) => row.json),
        rest,
        menu.cursor,
      );
  return next === null ? answer : { ...answer, link: nextLink(raw, next) };
}

/** 410: the version a cursor reads is not kept here, and the menu has changed the query's order since. */
const versionGone = () =>
  new ServiceError(
    'cursor_expired',
    `The menu has changed since this paging began, and the version it was reading is no longer kept (a version is kept ${PINNED_TTL_MS / 60_000} minutes after its last page, in the memory of the server that read it, which any of its --workers reaches; a restarted server, or another one behind the same address, does not have it). Start again: send the same query without cursor.`,
  );

/**
 * Form v1's menu: every query answered from the index of the menu the menu reader keeps (no database
 * read while it is warm), each answer kept with that menu in the coding asked for.
 */
export function v1Menu({ menus, peers }: Pick<FormContext, 'menus' | 'peers'>): FormMenu {
  const pinned = new PinnedMenus<Kept>();
  const latest = new WeakMap<object, BuiltFrom>();
  /**
   * The view of each parameters object: the read lane hands the same (frozen) object for the same
   * request line, so that a kept answer is found without parsing the query again.
   */
  const views = new WeakMap<Readonly<Record<string, unknown>>, SnapshotView>();

  /**
   * The menu version a page is read from: the current one, unless the cursor's version was another
   * whose order of the query's items differs from the current one's; then that version, while kept.
   */
  const versionFor = (dispensaryId: number, current: Kept, query: MenuQuery, after?: Position) => {
    if (!after || after.version === versionOf(current)) return current;
    if (after.print === orderPrint(current.index, query)) return current;
    const found = pinned.find(dispensaryId, after.version);
    if (!found) throw versionGone();
    return found;
  };

  /**
   * The answer kept with the menu for `key` in the coding asked for, made by `build` when not kept;
   * `choose` picks the menu version (the current one when left out); `compression`, its levels.
   */
  const answer = (
    key: string,
    build: (menu: Kept) => Representation,
    choose: (dispensaryId: number, current: Kept) => Kept = (_id, current) => current,
    compression = COMPRESSION,
  ) => {
    // Made once per view, not per read: a query's key is long, and a new string is hashed anew.
    const keys: Readonly<Record<Encoding, string>> = {
      identity: `identity|${key}`,
      gzip: `gzip|${key}`,
      br: `br|${key}`,
    };
    const fromPriced = (
      dispensaryId: number,
      acceptEncoding: string | string[] | undefined,
      priced: PricedMenu,
    ) => {
      const menu = choose(dispensaryId, keptOf(latest, priced));
      const encoding = negotiateEncoding(acceptEncoding);
      const { answers } = menu;
      const answerKey = keys[encoding];
      const found = answers.get(answerKey);
      if (found) return found;
      const plain = build(menu);
      const withLink = (encoded: Representation) =>
        plain.link === undefined ? encoded : { ...encoded, link: plain.link };
      const coded: Representation | Promise<Representation> =
        encoding === 'identity' || plain.body.length < COMPRESS_MIN_BYTES
          ? plain
          : plain.body.length <= COMPRESS_NOW_MAX_BYTES
            ? withLink(encodedNow(plain, encoding, compression))
            : encodedOf(plain, encoding, compression).then(withLink);
      if (answers.size >= KEPT_ANSWERS) answers.delete(answers.keys().next().value!);
      answers.set(answerKey, coded);
      if (coded instanceof Promise) {
        // Kept as the answer itself once compressed, so that the reads after it are answered in the
        // same turn, as the snapshots are; a failed compression is not kept: the next read tries again.
        const stillKept = () => answers.get(answerKey) === coded;
        coded.then(
          (ready) => stillKept() && answers.set(answerKey, ready),
          () => stillKept() && answers.delete(answerKey),
        );
      }
      return coded;
    };
    // No closure made per read while the priced menu is kept (andThen would take one).
    return (dispensaryId: number, acceptEncoding?: string | string[]) => {
      const priced = menus.pricedKept(dispensaryId);
      return priced instanceof Promise
        ? priced.then((ready) => fromPriced(dispensaryId, acceptEncoding, ready))
        : fromPriced(dispensaryId, acceptEncoding, priced);
    };
  };
  /** A page of the query from this version; `after`: the cursor's position. */
  const pageFrom = (
    parameters: Readonly<Record<string, unknown>>,
    query: MenuQuery,
    after: Position | undefined,
    choose: (dispensaryId: number, current: Kept) => Kept,
  ) =>
    answer(
      JSON.stringify(query),
      (menu) => identity(menu, query, after, parameters),
      choose,
      query.q ? SEARCH_COMPRESSION : COMPRESSION,
    );
  // Another worker's paging that reached this one's version (peer-versions.ts): that version's page.
  peers?.serve(async ({ dispensaryId, version, parameters, acceptEncoding }) => {
    const menu = pinned.find(dispensaryId, version);
    if (!menu) return undefined;
    const query = parseMenuQuery(parameters, FIELD_NAMES);
    const after = query.cursor === undefined ? undefined : decodeCursor(orderKey(query), query.cursor);
    return pageFrom(parameters, query, after, () => menu)(dispensaryId, acceptEncoding);
  });
  return {
    parameters: V1_MENU_PARAMETERS,
    note: 'Filter, search, sort and page with the query parameters; the answer is {"data", "next_cursor", "total", "facets"}, with a Link header to the next page. A paging reads every page from the menu version its first page came from (no item twice, none skipped); when that version is no longer kept and the menu has changed the order since, 410 cursor_expired: start again without cursor. Each price entry carries its effective prices under the specials now.',
    errors: [410],
    schema: V1MenuSchema,
    itemSchema: V1ItemSchema,
    view: (parameters): SnapshotView => {
      const known = views.get(parameters);
      if (known) return known;
      const query = parseMenuQuery(parameters, FIELD_NAMES);
      const after = query.cursor === undefined ? undefined : decodeCursor(orderKey(query), query.cursor);
      const read = pageFrom(parameters, query, after, (dispensaryId, current) => {
        const menu = versionFor(dispensaryId, current, query, after);
        // The version this page is read from is the one its next page reads: kept (or touched).
        if (after || query.limit < menu.index.rows.length)
          pinned.pin(dispensaryId, versionOf(menu), menu, menu.index.rows.length);
        return menu;
      });
      const view: SnapshotView = {
        name: 'v1:menu',
        read: after && peers ? readOrAskPeers(read, peers, after.version, parameters) : read,
      };
      views.set(parameters, view);
      return view;
    },
    item: (ref): SnapshotView => ({
      name: 'v1:item',
      read: answer(`item|${refText(ref)}`, (menu) => {
        const row = menu.index.find(ref);
        if (!row) {
          throw new ServiceError(
            'not_found',
            `There is no item ${refText(ref)} in this menu. List the items with GET /v1/menu.`,
          );
        }
        return taggedIdentity(row.json.bytes, row.json.tag, menu.cursor);
      }),
    }),
  };
}
