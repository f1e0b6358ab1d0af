/**
 * Realistic menus for the benchmark, and a database built from them through the services (the same
 * validation and writes as `menu import`), never by raw SQL.
 */
import { MENU_FORMS } from '../../src/forms/index.js';
import { createServices, type Services } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';

/** A small deterministic generator, so that every run serves the same bytes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BRANDS = [
  'Emerald Farms',
  'Coastal Cultivators',
  'Baked Bros',
  'High Desert Growers',
  'Pacific Reserve',
  'Golden State Extracts',
  'Humboldt Heritage',
  'Sunset Sherbet Co.',
  'Mile High Labs',
  'Northern Lights Collective',
  'Kiva Confections',
  'Wyld',
  'Stiiizy',
  'Raw Garden',
  'Jetty Extracts',
  'Papa & Barkley',
  'Lowell Farms',
  'Cookies',
  'Alien Labs',
  'Glass House',
];
const STRAIN_A = [
  'Blue',
  'Sour',
  'Purple',
  'Golden',
  'Super',
  'Lemon',
  'Gelato',
  'Wedding',
  'Cherry',
  'Mango',
];
const STRAIN_B = ['Dream', 'Diesel', 'Haze', 'Kush', 'Cookies', 'Cake', 'Runtz', 'Zkittlez', 'Glue', 'OG'];
const FLAVORS = ['Berry', 'Citrus', 'Earthy', 'Pine', 'Diesel', 'Sweet', 'Grape', 'Spicy', 'Vanilla', 'Mint'];
const EFFECTS = ['Relaxed', 'Happy', 'Euphoric', 'Uplifted', 'Creative', 'Sleepy', 'Focused', 'Energetic'];
const CONDITIONS = ['Stress', 'Anxiety', 'Pain', 'Insomnia', 'Depression', 'Nausea', 'Inflammation'];
const SENTENCES = [
  'Hand-trimmed and slow-cured for a smooth, flavorful smoke.',
  'Grown indoors under LED light in living soil, with no synthetic pesticides.',
  'A balanced profile that suits both newcomers and seasoned consumers.',
  'Lab tested for potency, residual solvents, heavy metals and microbials.',
  'Terpene-rich with a lingering finish; best enjoyed in the evening.',
  'Small-batch production from a family-owned craft cultivator.',
  'Consistent dosing in every piece; start low and go slow.',
  'Pairs well with a quiet night in or a long hike outdoors.',
];

type Shape = {
  type: string;
  weight: number;
  subtypes: string[];
  prices: [unit: string, amount: number, price: number][][];
};
const SHAPES: Shape[] = [
  {
    type: 'Flower',
    weight: 35,
    subtypes: ['Indica', 'Sativa', 'Hybrid', 'Indica Hybrid', 'Sativa Hybrid'],
    prices: [
      [
        ['gram', 1, 12],
        ['gram', 3.5, 35],
        ['ounce', 0.125, 38],
        ['ounce', 0.25, 70],
        ['ounce', 0.5, 130],
        ['ounce', 1, 240],
      ],
      [
        ['gram', 1, 10],
        ['ounce', 0.125, 32.5],
        ['ounce', 0.25, 60],
      ],
      [
        ['ounce', 0.125, 45],
        ['ounce', 0.25, 85],
        ['ounce', 0.5, 160],
        ['ounce', 1, 299.99],
      ],
    ],
  },
  {
    type: 'Preroll',
    weight: 12,
    subtypes: ['Indica', 'Sativa', 'Hybrid', 'Infused'],
    prices: [
      [['unit', 1, 9]],
      [
        ['unit', 1, 12],
        ['unit', 5, 45],
      ],
    ],
  },
  {
    type: 'Vape',
    weight: 15,
    subtypes: ['Live Resin', 'Distillate', 'Disposable'],
    prices: [
      [
        ['gram', 0.5, 30],
        ['gram', 1, 52],
      ],
      [['gram', 1, 45.5]],
    ],
  },
  {
    type: 'Edible',
    weight: 15,
    subtypes: ['Gummies', 'Chocolate', 'Brownies', 'Mints'],
    prices: [[['unit', 1, 22.99]], [['unit', 1, 18]]],
  },
  {
    type: 'Concentrate',
    weight: 8,
    subtypes: ['Shatter', 'Badder', 'Rosin', 'Diamonds'],
    prices: [
      [['gram', 1, 40]],
      [
        ['gram', 0.5, 25],
        ['gram', 1, 45],
      ],
    ],
  },
  { type: 'Wax', weight: 3, subtypes: ['Budder', 'Crumble'], prices: [[['gram', 1, 35]]] },
  { type: 'Tincture', weight: 4, subtypes: ['CBD', '1:1', 'THC'], prices: [[['unit', 1, 55]]] },
  { type: 'Drink', weight: 3, subtypes: ['Seltzer', 'Soda', 'Tea'], prices: [[['unit', 1, 8]]] },
  { type: 'Topical', weight: 3, subtypes: ['Balm', 'Lotion'], prices: [[['unit', 1, 28]]] },
  { type: 'Gear', weight: 2, subtypes: ['Battery', 'Grinder'], prices: [[['unit', 1, 19.99]]] },
];
const TOTAL_WEIGHT = SHAPES.reduce((sum, shape) => sum + shape.weight, 0);

/** `count` realistic menu items, in canonical field names, as a menu file would carry them. */
export function realisticMenu(count: number, seed = 1): Record<string, unknown>[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const some = <T>(list: readonly T[], min: number, max: number): T[] => {
    const wanted = min + Math.floor(next() * (max - min + 1));
    return [...new Set(Array.from({ length: wanted }, () => pick(list)))];
  };
  const round1 = (value: number) => Math.round(value * 10) / 10;
  const items: Record<string, unknown>[] = [];
  for (let index = 0; index < count; index++) {
    const roll = next() * TOTAL_WEIGHT;
    let weight = 0;
    const shape =
      SHAPES.find((candidate) => {
        weight += candidate.weight;
        return roll < weight;
      }) ?? SHAPES[0]!;
    const strain = `${pick(STRAIN_A)} ${pick(STRAIN_B)}`;
    const edible = ['Edible', 'Drink', 'Tincture', 'Topical'].includes(shape.type);
    const slug = `${strain}-${index + 1}`.toLowerCase().replaceAll(' ', '-');
    items.push({
      id: index + 1,
      name: shape.type === 'Gear' ? `${pick(STRAIN_A)} ${shape.subtypes[0]}` : `${strain} ${shape.type}`,
      brand: next() < 0.9 ? pick(BRANDS) : '',
      product_type: shape.type,
      product_subtype: pick(shape.subtypes),
      description: some(SENTENCES, 1, 3).join(' '),
      image: next() < 0.8 ? `https://images.example.com/menu/${slug}.jpg` : null,
      thc: edible || shape.type === 'Gear' ? null : round1(15 + next() * 15),
      cbd: shape.type === 'Gear' ? null : next() < 0.6 ? round1(next() * 2) : null,
      cbn: next() < 0.1 ? round1(next()) : null,
      total_thc: edible ? pick([5, 10, 50, 100, 200]) : null,
      total_cbd: edible && next() < 0.4 ? pick([10, 50, 100]) : null,
      flavors: shape.type === 'Gear' ? [] : some(FLAVORS, 1, 3),
      effects: shape.type === 'Gear' ? [] : some(EFFECTS, 1, 3),
      conditions: some(CONDITIONS, 0, 2),
      active: next() < 0.92,
      prices: pick(shape.prices).map(([unit, amount, price]) => ({
        unit,
        amount,
        price,
        stock: next() < 0.1 ? null : Math.floor(next() * 200),
      })),
    });
  }
  return items;
}

export interface BenchDispensary {
  id: number;
  token: string;
  items: number;
}

export interface BenchDatabase {
  credential: { username: string; password: string };
  adminKey: string;
  /** The dispensaries with 50, 500 and 5,000 items. */
  sized: BenchDispensary[];
  /** `scale` dispensaries of 500 items each, for the round-robin run. */
  scale: BenchDispensary[];
}

/**
 * Creates the database: one credential, one admin key, a dispensary per size, and `scale` dispensaries
 * of 500 items. Menus are validated once per distinct menu and written with `menus.replace`.
 */
export async function generateDatabase(
  path: string,
  options: { sizes: number[]; scale: number; onProgress?: (done: number, total: number) => void },
): Promise<BenchDatabase> {
  const store = await openStore(path);
  const services: Services = createServices(store, MENU_FORMS);
  try {
    const credential = await services.credentials.issue('bench-integrator');
    const admin = await services.adminKeys.create('bench', 'all');
    const sized: BenchDispensary[] = [];
    for (const size of options.sizes) {
      const created = await services.dispensaries.create(`Bench ${size}-item dispensary`);
      await services.menus.replace(created.id, services.menus.validate(realisticMenu(size, size)));
      sized.push({ id: created.id, token: created.token, items: size });
    }
    // A few distinct 500-item menus, so that neighbouring dispensaries do not serve the same bytes.
    const variants = Array.from({ length: 8 }, (_, index) =>
      services.menus.validate(realisticMenu(500, 1000 + index)),
    );
    const scale: BenchDispensary[] = [];
    for (let index = 0; index < options.scale; index++) {
      const created = await services.dispensaries.create(`Bench scale dispensary ${index + 1}`);
      await services.menus.replace(created.id, variants[index % variants.length]!);
      scale.push({ id: created.id, token: created.token, items: 500 });
      options.onProgress?.(index + 1, options.scale);
    }
    return {
      credential: { username: credential.username, password: credential.password },
      adminKey: admin.key,
      sized,
      scale,
    };
  } finally {
    await store.close();
  }
}

const CANNABINOIDS = ['d9-thc', 'd9-thca', 'cbd', 'cbda', 'cbg', 'cbga', 'cbn', 'thcv', 'cbc', 'total-thc'];
const TERPENES = [
  'beta-myrcene',
  'limonene',
  'beta-caryophyllene',
  'linalool',
  'alpha-pinene',
  'beta-pinene',
  'alpha-humulene',
  'terpinolene',
];
const SIZES: [label: string, amount: number, price: number][] = [
  ['Eighth', 0.125, 35],
  ['Quarter', 0.25, 65],
  ['Half', 0.5, 120],
];

/**
 * `count` rich items (issue 30, §5): each realistic item with 10 cannabinoids, 8 terpenes, a batch
 * with its certificate, a strain, an external id and 3 price entries with label, medical price, SKU and
 * barcode. Every `tagEvery`-th item is tagged `weekly` (what the specials bench targets).
 */
export function richMenu(count: number, seed = 1, tagEvery = 5): Record<string, unknown>[] {
  const next = random(seed + 1);
  const value = (max: number) => Math.round(next() * max * 100) / 100;
  return realisticMenu(count, seed).map((item, index) => ({
    ...item,
    external_id: `pos-${seed}-${index + 1}`,
    tags: index % tagEvery === 0 ? ['weekly', 'Indoor'] : ['Indoor'],
    staff_pick: index % 17 === 0,
    cannabinoids: CANNABINOIDS.map((code) => {
      const low = value(code === 'd9-thca' || code === 'total-thc' ? 25 : 2);
      return { code, min: low, max: low, unit: '%', basis: 'weight', status: 'detected' };
    }),
    terpenes: TERPENES.map((code) => {
      const low = value(1.5);
      return { code, min: low, max: Math.round((low + 0.1) * 100) / 100, unit: '%', basis: 'weight' };
    }),
    batch: {
      package_label: `1A40603000${String(100000000000000 + seed * 100000 + index).slice(-14)}`,
      batch_number: `B-${seed}-${index + 1}`,
      lab_name: 'Emerald Test Labs',
      lab_license: 'LAB-00042',
      tested_at: '2026-11-02',
      coa_url: `https://labs.example.com/coa/${seed}-${index + 1}.pdf`,
      passed: true,
      tests: { potency: 'pass', pesticides: 'pass', microbials: 'pass', heavy_metals: 'pass' },
    },
    strain: { name: String(item.name).split(' ').slice(0, 2).join(' '), type: 'hybrid', lineage: null },
    prices: SIZES.map(([label, amount, price], size) => ({
      unit: 'ounce',
      amount,
      price,
      stock: Math.floor(next() * 200),
      label,
      med_price: Math.round(price * 0.9 * 100) / 100,
      sku: `SKU-${index + 1}-${size}`,
      barcode: `8500${String(index * 3 + size).padStart(8, '0')}`,
    })),
  }));
}
