/**
 * Searches and filters a store's menu in Form v1 (`/v1/menu`), reading every page of the answer with
 * the client's async iterator, which follows `next_cursor` from page to page.
 *
 *   npx tsx examples/v1-search.ts [--q TEXT] [--product-type T,T] [--sort KEY] [--page-size N]
 *     [--base-url URL] [--username U] [--password P] [--token T]
 */
import type { V1Sort } from 'dispensary-menu-api/client';
import { COMMON_USAGE, exampleClient, exampleOptions, runExample } from './args.js';

const USAGE = `Searches and filters a store's menu in Form v1, page by page.

Usage: npx tsx examples/v1-search.ts [options]

  --q TEXT              search words ("blue dr" finds Blue Dream)
  --product-type LIST   product types, comma-separated (any of them)
  --sort KEY            name, price, price_per_gram, thc, updated_at or relevance; -KEY descending
  --page-size N         items per page, 1 to 1000 (default: 100)
${COMMON_USAGE}
(Form v1 is read whatever --form says.)`;

async function main(): Promise<void> {
  const options = exampleOptions(USAGE, {
    q: { type: 'string' },
    'product-type': { type: 'string' },
    sort: { type: 'string' },
    'page-size': { type: 'string', default: '100' },
  });
  const { q, sort } = options.values;
  const productType = options.values['product-type'];
  const reader = exampleClient(options).v1(options.token);
  const query = {
    ...(q === undefined ? {} : { q }),
    ...(productType === undefined ? {} : { product_type: productType.split(',') }),
    // The server checks the key and says what it takes when it is not one of them.
    ...(sort === undefined ? {} : { sort: sort as V1Sort }),
    limit: Number(options.values['page-size']),
    fields: ['id', 'name', 'brand', 'prices.effective_price'],
  };
  let pageNumber = 0;
  for await (const page of reader.pages(query)) {
    pageNumber += 1;
    if (pageNumber === 1) console.log(`${page.total} items match`);
    for (const item of page.data) {
      const prices = (item.prices ?? []).map((price) => price.effective_price ?? Number.NaN);
      const from = prices.length > 0 ? ` from $${Math.min(...prices).toFixed(2)}` : '';
      console.log(`page ${pageNumber}: ${item.id} ${item.name} (${item.brand || 'no brand'})${from}`);
    }
  }
}

runExample(main);
