import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MenuPricing } from '../../src/domain/special-pricing.js';
import { MenuIndex, orderPrint } from '../../src/forms/form-v1/engine.js';
import { FIELD_NAMES } from '../../src/forms/form-v1/item.js';
import { KeptJson, pageBody, pageTag } from '../../src/forms/form-v1/page-body.js';
import { parseMenuQuery } from '../../src/forms/form-v1/query.js';
import { tagOf } from '../../src/services/snapshots/codings.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';
import * as v1 from './v1-arbitraries.js';

/**
 * A page's body is its items' kept JSON bytes, and its entity tag is made from their tags, not from
 * the body (src/forms/form-v1/page-body.ts): the tags must still tell every two bodies apart. The
 * order's print, which cursors carry (and so must not change between builds of the server), is the
 * hash of each entry's id and sort value as JSON.
 */
describe('Form v1 pages: body, entity tag and the order print', () => {
  /** Item JSON texts, few enough that random pages often share items, and sometimes are the same. */
  const texts = ['{"id":1}', '{"id":2,"name":"Blüe"}', '{"id":3,"tags":[]}', '{"id":12}'];
  const arbitraryPage = fc.record({
    items: fc.array(fc.constantFrom(...texts), { maxLength: 4 }),
    rest: fc.constantFrom(
      '],"next_cursor":null,"total":1,"facets":{}}',
      '],"next_cursor":"x","total":2,"facets":{}}',
    ),
  });
  /** As the query index keeps them: the bytes and tag made when first asked for (KeptJson). */
  const asRows = (items: readonly string[]) => items.map((text) => new KeptJson(text));

  it('writes the items joined between the head and the rest, with the tags of their bytes', () => {
    fc.assert(
      fc.property(arbitraryPage, fc.boolean(), ({ items, rest }, tagFirst) => {
        const rows = asRows(items);
        // A kept JSON's tag may be asked for before its bytes, or after.
        if (tagFirst) pageTag(rows, rest);
        expect(pageBody(rows, rest).toString()).toBe(`{"data":[${items.join(',')}${rest}`);
        for (const [index, row] of rows.entries()) expect(row.tag).toBe(tagOf(Buffer.from(items[index]!)));
      }),
    );
  });

  it('gives two pages the same tag exactly when their bodies are the same', () => {
    fc.assert(
      fc.property(arbitraryPage, arbitraryPage, (one, other) => {
        const sameBody = pageBody(asRows(one.items), one.rest).equals(
          pageBody(asRows(other.items), other.rest),
        );
        const sameTag = pageTag(asRows(one.items), one.rest) === pageTag(asRows(other.items), other.rest);
        expect(sameTag).toBe(sameBody);
      }),
      { numRuns: 2000 },
    );
  });

  describe('on a real store', () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await testRuntime();
    });
    afterAll(() => runtime.close());

    it("prints the order as the SHA-256 of each entry's id and JSON value, as cursors always had it", async () => {
      const { menus, store } = runtime.services;
      const id = runtime.seed.dispensaryId;
      await fc.assert(
        fc.asyncProperty(
          v1.arbitraryMenu,
          fc.array(v1.arbitraryQuery, { minLength: 1, maxLength: 6 }),
          async (menu, queries) => {
            await menus.replace(id, menus.validate(v1.toItems(menu)));
            const index = MenuIndex.of(await store.menus.read(id), new MenuPricing([], 'UTC', Date.now()));
            // updated_at sorts by text, with nulls for items whose prices have no time.
            for (const raw of [...queries, { sort: 'updated_at' }, { sort: '-updated_at', active: 'all' }]) {
              const query = parseMenuQuery(raw, FIELD_NAMES);
              const text = index
                .result(query)
                .ranked.map((entry) => `${entry.row.id}\0${JSON.stringify(entry.value)}\n`)
                .join('');
              const expected = createHash('sha256').update(text).digest('base64url').slice(0, 16);
              expect(orderPrint(index, query), JSON.stringify(raw)).toBe(expected);
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
