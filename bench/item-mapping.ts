/**
 * `npx tsx bench/item-mapping.ts`: the cost of mapping a realistic 5,000-item menu to each
 * form's wire items, the mapping derived from the item schema against the hand-written one it replaced
 * (copied below from commit dc92062), interleaved in one run so that both see the same machine. Checks
 * first that both write the same JSON. The first round warms up and is not counted.
 *
 * V8 may decide mid-run to allocate one mapping's objects straight in the old generation (allocation-site
 * pretenuring), which then costs that mapping major collections: the medians can differ tenfold by
 * that alone. `npx tsx --no-allocation-site-pretenuring bench/item-mapping.ts` shows the mapping's own cost.
 */
import { type CanonicalRecord, fromCanonicalRecord } from '../src/domain/canonical.js';
import type { MenuItem } from '../src/domain/item.js';
import { fromCents } from '../src/domain/money.js';
import type { FormBNames } from '../src/forms/form.js';
import { toFormAItem } from '../src/forms/form-a/item.js';
import { toFormBItem } from '../src/forms/form-b/item.js';
import { realisticMenu } from './lib/data.js';

const ITEMS = 5000;
const ROUNDS = 11;
const BLOCK = 30;

function handWrittenFormA(item: MenuItem) {
  return {
    id: item.id,
    name: item.name,
    brand_name: item.brand,
    product_type: item.productType,
    product_subtype: item.productSubtype,
    description: item.description,
    product_prices: item.prices.map((price) => ({
      unit: price.unit,
      amount: price.amount,
      price: fromCents(price.priceCents),
    })),
    active: item.active,
  };
}

function handWrittenFormB(item: MenuItem, names: FormBNames): Record<string, unknown> {
  const priceEntries = item.prices.map((price) => ({
    unit: price.unit,
    amount: price.amount,
    price: fromCents(price.priceCents),
    stock: price.stock,
  }));
  return {
    id: item.id,
    name: item.name,
    description: item.description,
    image: item.image,
    type: item.productType,
    subtype: item.productSubtype,
    ...(names === 'sample' ? {} : { brand: item.brand }),
    ...(names === 'table' ? {} : { brand_name: item.brand }),
    cbd: item.cbd,
    cbn: item.cbn,
    thc: item.thc,
    total_thc: item.totalThc,
    total_cbd: item.totalCbd,
    flavors: item.flavors,
    effects: item.effects,
    conditions: item.conditions,
    ...(names === 'sample' ? {} : { variants: priceEntries }),
    ...(names === 'table' ? {} : { prices: priceEntries }),
  };
}

// Form B in its default spelling only: a server writes one, and a hand-written mapping called with
// several would be slowed by the mix, which a server never sees.
const pairs: Record<
  string,
  { handWritten: (item: MenuItem) => unknown; derived: (item: MenuItem) => unknown }
> = {
  'Form A': { handWritten: handWrittenFormA, derived: toFormAItem },
  'Form B (both)': {
    handWritten: (item) => handWrittenFormB(item, 'both'),
    derived: (item) => toFormBItem(item, 'both'),
  },
};

const items = realisticMenu(ITEMS).map((record) => fromCanonicalRecord(record as CanonicalRecord));
for (const [form, { handWritten, derived }] of Object.entries(pairs)) {
  if (JSON.stringify(items.map(handWritten)) !== JSON.stringify(items.map(derived))) {
    throw new Error(`${form}: the derived mapping writes other JSON than the hand-written one`);
  }
}

// Each mapping runs in blocks of consecutive calls, the blocks interleaved: the collections of its own
// garbage then fall on each mapping as often as it allocates, not by where it stands in a round.
const times = new Map<string, number[]>();
let mapped = 0; // uses each result, so that no mapping can be optimized away
for (let round = 0; round < ROUNDS; round++) {
  for (const [form, mappers] of Object.entries(pairs)) {
    for (const [kind, map] of Object.entries(mappers)) {
      const name = `${form}, ${kind}`;
      const samples = times.get(name) ?? [];
      for (let call = 0; call < BLOCK; call++) {
        const started = performance.now();
        const wire = items.map(map);
        samples.push(performance.now() - started);
        mapped += wire.length;
      }
      times.set(name, samples);
    }
  }
}

console.log(`${ITEMS} items, ${(ROUNDS - 1) * BLOCK} timed calls of each mapping:`);
for (const [name, samples] of times) {
  const timed = samples.slice(BLOCK);
  const sorted = [...timed].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.floor(sorted.length * share)]!.toFixed(2);
  const mean = (timed.reduce((sum, time) => sum + time, 0) / timed.length).toFixed(2);
  console.log(
    `${name.padEnd(28)} median ${at(0.5)} ms, p10 ${at(0.1)} ms, p90 ${at(0.9)} ms, mean ${mean} ms`,
  );
}
console.log(`(${mapped} items mapped)`);
