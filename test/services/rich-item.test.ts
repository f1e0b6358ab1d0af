import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCanonicalRecord } from '../../src/domain/canonical.js';
import { toItemRead } from '../../src/domain/item-reads.js';
import { CANONICAL_ITEM_EXAMPLE } from '../../src/domain/item-schema.js';
import {
  CANNABINOID_CODES,
  IMAGE_ROLES,
  LAB_TESTS,
  STRAIN_TYPES,
  TERPENE_CODES,
  TEST_OUTCOMES,
} from '../../src/domain/lab-vocabulary.js';
import { ServiceError } from '../../src/services/errors.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** Text as the validator keeps it: trimmed, without NUL or the CSV cells' ';' separator. */
const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .,'()×-]{0,18}[A-Za-z0-9]$/);
const nullableWord = fc.option(word, { nil: null });
const amount = fc.oneof(
  fc.constantFrom(0, 0.1, 1e-7, 18.25, 99.99),
  fc.double({ min: 0, max: 100, noNaN: true, noDefaultInfinity: true }).map((value) => Math.abs(value)),
);
const kinds = [
  { unit: '%', basis: 'weight' },
  { unit: 'mg/g', basis: 'weight' },
  { unit: 'mg/ml', basis: 'weight' },
  { unit: 'mg', basis: 'package' },
  { unit: 'mg', basis: 'serving' },
] as const;

const analytes = (codes: readonly string[]) =>
  fc
    .uniqueArray(
      fc.record({
        code: fc.constantFrom(...codes),
        kind: fc.constantFrom(...kinds),
        values: fc.option(fc.tuple(amount, amount), { nil: null }),
        status: fc.constantFrom('nd', 'lt_loq', 'not_tested'),
      }),
      { maxLength: 5, selector: (entry) => `${entry.code} ${entry.kind.unit} ${entry.kind.basis}` },
    )
    .map((entries) =>
      entries.map(({ code, kind, values, status }) => {
        const [low, high] = values ? [Math.min(...values), Math.max(...values)] : [null, null];
        return { code, min: low, max: high, ...kind, status: values ? 'detected' : status };
      }),
    );

function saysSomething<T>(value: T): T | null {
  const leaves = (node: unknown): unknown[] =>
    node !== null && typeof node === 'object' ? Object.values(node).flatMap(leaves) : [node];
  return leaves(value).some((leaf) => leaf !== null && leaf !== 'not_tested') ? value : null;
}

const images = fc.array(
  fc.record({
    url: word.map((value) => `https://img.example/${encodeURIComponent(value)}.jpg`),
    alt: fc.oneof(fc.constant(''), word),
    role: fc.constantFrom(...IMAGE_ROLES),
  }),
  { maxLength: 3 },
);

const richItem = fc
  .record({
    id: fc.integer({ min: 1, max: 1000 }),
    tags: fc.uniqueArray(word, { maxLength: 3 }),
    staff_pick: fc.boolean(),
    external_id: fc.oneof(fc.constant(''), word),
    strain: fc.option(
      fc.record({
        name: nullableWord,
        type: fc.option(fc.constantFrom(...STRAIN_TYPES), { nil: null }),
        lineage: nullableWord,
      }),
      { nil: null },
    ),
    cannabinoids: analytes(CANNABINOID_CODES),
    terpenes: analytes(TERPENE_CODES),
    batch: fc.option(
      fc.record({
        package_label: fc.option(fc.stringMatching(/^[A-Z0-9]{24}$/), { nil: null }),
        batch_number: nullableWord,
        lab_name: nullableWord,
        lab_license: nullableWord,
        tested_at: fc.option(fc.constantFrom('2026-11-02', '2025-01-31'), { nil: null }),
        coa_url: fc.option(fc.constant('https://labs.example/coa.pdf'), { nil: null }),
        passed: fc.option(fc.boolean(), { nil: null }),
        tests: fc.record(
          Object.fromEntries(LAB_TESTS.map((test) => [test, fc.constantFrom(...TEST_OUTCOMES)])) as Record<
            (typeof LAB_TESTS)[number],
            fc.Arbitrary<(typeof TEST_OUTCOMES)[number]>
          >,
        ),
      }),
      { nil: null },
    ),
    serving: fc.option(
      fc.record({
        servings_per_pack: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
        thc_mg_per_serving: fc.option(amount, { nil: null }),
        cbd_mg_per_serving: fc.option(amount, { nil: null }),
      }),
      { nil: null },
    ),
    images,
    label: fc.oneof(fc.constant(''), word),
    med_price: fc.option(
      fc.integer({ min: 0, max: 1_000_00 }).map((cents) => cents / 100),
      { nil: null },
    ),
    sku: fc.oneof(fc.constant(''), word),
  })
  .map(({ label, med_price, sku, ...rich }) => ({
    ...CANONICAL_ITEM_EXAMPLE,
    ...rich,
    // An object that says nothing (every field null or its default) is stored as null.
    strain: saysSomething(rich.strain),
    batch: saysSomething(rich.batch),
    serving: saysSomething(rich.serving),
    // The first primary image is `image`; without one, the example's image stays.
    image: rich.images.find((image) => image.role === 'primary')?.url ?? CANONICAL_ITEM_EXAMPLE.image,
    prices: [{ ...CANONICAL_ITEM_EXAMPLE.prices[0]!, label, med_price, sku }],
  }));

const menuOf = fc
  .uniqueArray(richItem, {
    minLength: 1,
    maxLength: 4,
    selector: (item) => item.id,
  })
  .filter((items) => {
    const external = items.map((item) => item.external_id).filter((id) => id !== '');
    return new Set(external).size === external.length;
  });

describe('the rich item', () => {
  let runtime: TestRuntime;
  let dispensaryId: number;

  beforeAll(async () => {
    runtime = await testRuntime();
    dispensaryId = runtime.seed.dispensaryId;
  });
  afterAll(() => runtime.close());

  it('survives sync → read, and JSON and CSV export → import → export, unchanged', async () => {
    const { menus } = runtime.services;
    await fc.assert(
      fc.asyncProperty(menuOf, async (menu) => {
        await menus.replace(dispensaryId, menus.validate(structuredClone(menu)));
        const sorted = [...menu].sort((a, b) => a.id - b.id);
        const read = async () => (await menus.items(dispensaryId)).map(toCanonicalRecord);
        expect(await read()).toEqual(sorted);
        for (const format of ['json', 'csv'] as const) {
          const exported = await menus.export(dispensaryId, 'canonical', format);
          await menus.replace(dispensaryId, menus.parse(exported, format));
          expect(await read()).toEqual(sorted);
          expect(await menus.export(dispensaryId, 'canonical', format)).toBe(exported);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('reads a lab list, images and batch written in CSV cells as a person types them', () => {
    const csv = [
      'name,product_type,cannabinoids,terpenes,images,batch,unit,amount,price',
      'Cake,Flower,"THC=0.6 %; THCa=20-22 %; cbd=nd %; CBN=5 mg/serving","Myrcene=1.1 %","primary=https://img.example/a.jpg The jar","package_label=1A4060300003B01000012345; passed=true; tests.pesticides=pass",ounce,0.125,38',
    ].join('\n');
    const [item] = runtime.services.menus.parse(csv, 'csv');
    const record = toItemRead({ ...item!, id: 1 });
    expect(
      record.cannabinoids.map(({ code, min, max, unit, basis, status }) => [
        code,
        min,
        max,
        unit,
        basis,
        status,
      ]),
    ).toEqual([
      ['d9-thc', 0.6, 0.6, '%', 'weight', 'detected'],
      ['d9-thca', 20, 22, '%', 'weight', 'detected'],
      ['cbd', null, null, '%', 'weight', 'nd'],
      ['cbn', 5, 5, 'mg', 'serving', 'detected'],
    ]);
    expect(record.terpenes[0]!.code).toBe('beta-myrcene');
    expect(record.image).toBe('https://img.example/a.jpg');
    expect(record.images).toEqual([{ url: 'https://img.example/a.jpg', alt: 'The jar', role: 'primary' }]);
    expect(record.batch?.tests).toMatchObject({ pesticides: 'pass', potency: 'not_tested' });
    // Computed: 0.6 + 0.877 × 20 and 0.6 + 0.877 × 22; an eighth is 3.5 g.
    expect(record.potency.thc).toEqual({
      min: 18.14,
      max: 19.894,
      unit: '%',
      basis: 'weight',
      method: 'computed',
    });
    expect(record.prices[0]).toMatchObject({ net_weight_g: 3.5, price_per_gram: 10.86 });
  });

  it("takes the lab's reported total over the computed one", () => {
    const [item] = runtime.services.menus.validate([
      {
        name: 'Cake',
        product_type: 'Flower',
        cannabinoids: [
          { code: 'total-thc', min: 24.1, unit: '%' },
          { code: 'd9-thc', min: 1, unit: '%' },
        ],
      },
    ]);
    expect(toItemRead({ ...item!, id: 1 }).potency).toEqual({
      thc: { min: 24.1, max: 24.1, unit: '%', basis: 'weight', method: 'reported' },
      cbd: null,
    });
  });

  describe('refuses bad input with the field path and what to do, and changes nothing', () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      [
        'an unknown analyte code',
        { cannabinoids: [{ code: 'thcx', min: 1, unit: '%' }] },
        '[0].cannabinoids[0].code',
        /use one of d9-thc, d9-thca/,
      ],
      [
        'a unit that does not fit the basis',
        {
          cannabinoids: [
            { code: 'cbd', min: 1, unit: 'mg' },
            { code: 'thc', min: 1, unit: '%', basis: 'package' },
          ],
        },
        '[0].cannabinoids[1].unit',
        /% does not fit basis package; use mg/,
      ],
      [
        'min above max',
        { terpenes: [{ code: 'limonene', min: 2, max: 1, unit: '%' }] },
        '[0].terpenes[0].min',
        /above max 1/,
      ],
      [
        'a percentage above 100',
        { cannabinoids: [{ code: 'thc', min: 101, unit: '%' }] },
        '[0].cannabinoids[0].max',
        /above 100/,
      ],
      [
        'an analyte status that is not one of the choices',
        { cannabinoids: [{ code: 'cbd', min: 1, unit: '%', status: 'maybe' }] },
        '[0].cannabinoids[0].status',
        /must be one of detected, nd/,
      ],
      [
        'an analyte field that does not exist',
        { terpenes: [{ code: 'limonene', min: 1, unit: '%', lab: 'x' }] },
        '[0].terpenes[0]',
        /has an unknown field lab; known: code, min/,
      ],
      [
        'a code given twice in one unit and basis',
        {
          cannabinoids: [
            { code: 'cbd', min: 1, unit: '%' },
            { code: 'cbd', min: 1, unit: 'mg', basis: 'package' },
            { code: 'CBD', min: 2, unit: '%' },
          ],
        },
        '[0].cannabinoids[2]',
        /repeats cbd in % per weight of \[0\]\.cannabinoids\[0\]/,
      ],
      [
        'a test result that is not one of the choices, deep in the batch',
        { batch: { tests: { potency: 'maybe' } } },
        '[0].batch.tests.potency',
        /must be one of/,
      ],
      [
        'a malformed package tag',
        { batch: { package_label: '1a4-short' } },
        '[0].batch.package_label',
        /24 upper-case letters and digits/,
      ],
      [
        'an image that disagrees with image',
        { image: 'https://a.example/x.jpg', images: [{ url: 'https://a.example/y.jpg', role: 'primary' }] },
        '[0].image',
        /disagrees with images\[0\]\.url/,
      ],
    ];
    it.each(cases)('%s', async (_what, fields, field, message) => {
      const { menus } = runtime.services;
      const before = await menus.export(dispensaryId, 'canonical', 'json');
      const attempt = () => menus.upsert(dispensaryId, [{ name: 'Bad', product_type: 'Flower', ...fields }]);
      await expect(attempt()).rejects.toBeInstanceOf(ServiceError);
      const error = await attempt().catch((caught: ServiceError) => caught);
      expect((error as ServiceError).code).toBe('invalid_request');
      expect((error as ServiceError).problems).toEqual(
        expect.arrayContaining([{ field, message: expect.stringMatching(message) }]),
      );
      expect(await menus.export(dispensaryId, 'canonical', 'json')).toBe(before);
    });

    it('an external_id used twice: in one write, or by another stored item', async () => {
      const { menus } = runtime.services;
      await menus.replace(
        dispensaryId,
        menus.validate([{ id: 1, name: 'A', product_type: 'Flower', external_id: 'pos-1' }]),
      );
      const before = await menus.export(dispensaryId, 'canonical', 'json');
      const twice = [
        { name: 'B', product_type: 'Flower', external_id: 'pos-2' },
        { name: 'C', product_type: 'Flower', external_id: 'pos-2' },
      ];
      await expect(menus.upsert(dispensaryId, twice)).rejects.toMatchObject({
        problems: [
          {
            field: '[1].external_id',
            message: expect.stringMatching(/repeats external_id pos-2 of item \[0\]/),
          },
        ],
      });
      await expect(
        menus.upsert(dispensaryId, [{ id: 2, name: 'B', product_type: 'Flower', external_id: 'pos-1' }]),
      ).rejects.toMatchObject({
        problems: [
          { field: '[0].external_id', message: expect.stringMatching(/is the external_id of item 1/) },
        ],
      });
      expect(await menus.export(dispensaryId, 'canonical', 'json')).toBe(before);
      // Without an id, partial sync finds the item by its external_id.
      expect(
        await menus.upsert(dispensaryId, [
          { name: 'A renamed', product_type: 'Flower', external_id: 'pos-1' },
        ]),
      ).toEqual({
        created: [],
        updated: [1],
      });
    });
  });
});
