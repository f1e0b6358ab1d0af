import fc from 'fast-check';
import { basicAuthorization } from '../helpers/basic-auth.js';

/** Form v1's credential headers: HTTP Basic and Dispensary-Token. */
export const v1Auth = (seed: {
  username: string;
  password: string;
  token: string;
}): Record<string, string> => ({
  authorization: basicAuthorization(`${seed.username}:${seed.password}`),
  'dispensary-token': seed.token,
});

/** Random Form v1 menus and queries, small enough that most queries match items (the property tests'). */
export const TYPES = ['Flower', 'Edible', 'Vape'];
export const BRANDS = ['Alpha', 'Beta', 'Gamma'];
export const TAGS = ['indoor', 'organic', 'sale'];
export const NAMES = ['Blue Dream', 'Sour Diesel', 'Blüe Moon', 'Dream Cake', 'Gelato'];

/** An item as the tests write it: canonical fields, with its THC as one number (or none). */
export type Input = {
  id: number;
  name: string;
  brand: string;
  product_type: string;
  tags: string[];
  active: boolean;
  staff_pick: boolean;
  thc: number | null;
  prices: { unit: string; amount: number; price: number; stock: number | null }[];
};
export type Query = Partial<Record<string, string | number | string[]>>;

export const arbitraryItem = (id: number): fc.Arbitrary<Input> =>
  fc.record({
    id: fc.constant(id),
    name: fc.constantFrom(...NAMES),
    brand: fc.constantFrom(...BRANDS),
    product_type: fc.constantFrom(...TYPES),
    tags: fc.subarray(TAGS),
    active: fc.boolean(),
    staff_pick: fc.boolean(),
    thc: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
    prices: fc.uniqueArray(
      fc.record({
        unit: fc.constant('gram'),
        amount: fc.integer({ min: 1, max: 7 }),
        price: fc.integer({ min: 1, max: 80 }),
        stock: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      }),
      { minLength: 0, maxLength: 3, selector: (entry) => entry.amount },
    ),
  });

export const arbitraryMenu = fc
  .uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 8, maxLength: 25 })
  .chain((ids) => fc.tuple(...ids.map(arbitraryItem)));

/** A filter in about one query of four, so that most queries still match items. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

export const arbitraryQuery: fc.Arbitrary<Query> = fc
  .record(
    {
      product_type: rarely(fc.subarray(TYPES, { minLength: 1 })),
      brand: rarely(fc.subarray(BRANDS, { minLength: 1 })),
      tag: rarely(fc.subarray(TAGS, { minLength: 1 })),
      price_min: rarely(fc.integer({ min: 0, max: 40 })),
      price_max: rarely(fc.integer({ min: 40, max: 90 })),
      thc_min: rarely(fc.integer({ min: 0, max: 20 })),
      in_stock: rarely(fc.constant('true')),
      staff_pick: rarely(fc.constant('true')),
      active: rarely(fc.constantFrom('true', 'false', 'all')),
      // `g` and `s` begin a word of the name in some items and the brand's or a tag's in others: their
      // scores differ, so relevance orders by more than the id.
      q: rarely(fc.constantFrom('dream', 'blue dr', 'BLUE', 'ca', 'g', 's')),
      sort: fc.constantFrom(
        'name',
        '-name',
        'price',
        '-price',
        'price_per_gram',
        'thc',
        '-thc',
        'relevance',
        '-relevance',
      ),
    },
    { requiredKeys: [] },
    // Relevance is a search's order: without q it is a 400, not a list.
  )
  .map((query) =>
    query.q === undefined && String(query.sort).endsWith('relevance') ? { ...query, sort: undefined } : query,
  );

/**
 * The items to write: the THC as a lab value in percent by weight, or for every third item as the
 * specification's `thc` field, which the THC filters and sort read when there is no lab value.
 */
export const toItems = (menu: readonly Input[]) =>
  menu.map((item) => ({
    ...item,
    thc: item.id % 3 === 0 ? item.thc : undefined,
    cannabinoids:
      item.thc === null || item.id % 3 === 0
        ? []
        : [
            {
              code: 'total-thc',
              min: item.thc,
              max: item.thc,
              unit: '%',
              basis: 'weight',
              status: 'detected',
            },
          ],
  }));

export const asQuery = (query: Query): URLSearchParams => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const one of value) search.append(name, one);
    else if (value !== undefined) search.append(name, String(value));
  }
  return search;
};
