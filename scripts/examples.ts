/**
 * `npm run examples`: writes examples/menu.json and examples/menu.csv, the ready menu templates the
 * manual imports (docs/sync-api.md). The first item is the canonical item schema's own example (src/domain/item-schema.ts);
 * the CSV is the JSON written by the same code as `menu export --format csv`. `--check` fails when the
 * committed files differ (test/e2e/readme.e2e.test.ts runs it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CanonicalRecord, fromCanonicalRecord } from '../src/domain/canonical.js';
import { CANONICAL_ITEM_EXAMPLE } from '../src/domain/item-schema.js';
import { writeCsv } from '../src/services/menu-files/csv.js';
// The rich fields (docs/rich-item.md) at their missing values, as a point of sale that writes only the
// specification's leaves them: the tests' item builder states them once.
import {
  SPEC_ONLY_RECORD_FIELDS as PLAIN,
  SPEC_ONLY_PRICE_FIELDS as PLAIN_PRICE,
} from '../test/domain/item-builder.js';

const FOLDER = new URL('../examples/', import.meta.url);

/** Two more items, so that the templates show a unit-priced product and an inactive one. */
const MORE = [
  {
    ...CANONICAL_ITEM_EXAMPLE,
    ...PLAIN,
    id: 2,
    name: 'Mango Haze Live Resin Cart',
    brand: 'Sunset Extracts',
    product_type: 'Vape',
    product_subtype: 'Sativa',
    description: '0.5 g live resin cartridge, 510 thread.',
    image: null,
    cbd: null,
    thc: 84.2,
    flavors: ['Mango', 'Citrus'],
    effects: ['Energetic', 'Focused'],
    conditions: ['Fatigue'],
    prices: [{ unit: 'unit', amount: 1, price: 45, stock: 18, ...PLAIN_PRICE }],
  },
  {
    ...CANONICAL_ITEM_EXAMPLE,
    ...PLAIN,
    external_id: 'pos-20317',
    cannabinoids: [{ code: 'd9-thc', min: 100, max: 100, unit: 'mg', basis: 'package', status: 'detected' }],
    serving: { servings_per_pack: 10, thc_mg_per_serving: 10, cbd_mg_per_serving: null },
    id: 3,
    name: 'Midnight Berry Gummies',
    brand: 'Night Owl Edibles',
    product_type: 'Edible',
    product_subtype: 'Indica',
    description: '10 gummies, 10 mg THC each.',
    image: null,
    cbd: null,
    thc: null,
    flavors: ['Berry'],
    effects: ['Sleepy', 'Relaxed'],
    conditions: ['Insomnia'],
    active: false,
    prices: [{ unit: 'unit', amount: 1, price: 22, stock: 0, ...PLAIN_PRICE, label: '10 pack' }],
  },
];

/** The JSON file is compared as data (Biome formats it its own way); the CSV byte for byte. */
export function sameContent(name: string, committed: string, fresh: string): boolean {
  if (!name.endsWith('.json')) return committed === fresh;
  return JSON.stringify(JSON.parse(committed)) === JSON.stringify(JSON.parse(fresh));
}

export function exampleFiles(): Record<string, string> {
  const items = [CANONICAL_ITEM_EXAMPLE, ...MORE] as unknown as CanonicalRecord[];
  return {
    'menu.json': `${JSON.stringify(items, null, 2)}\n`,
    'menu.csv': writeCsv(items.map(fromCanonicalRecord)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [name, text] of Object.entries(exampleFiles())) {
    const target = new URL(name, FOLDER);
    if (!check) writeFileSync(target, text);
    else if (!sameContent(name, readFileSync(target, 'utf8'), text)) stale = true;
  }
  if (stale) {
    process.stderr.write(
      'examples/menu.json or menu.csv is stale. Run `npm run examples` and commit them.\n',
    );
    process.exit(1);
  }
}
