import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { checkAnalytes } from '../../src/domain/analyte-checks.js';
import { checkDocument } from '../../src/domain/document-checks.js';
import { BatchSchema, type DocumentProblem, ImageSchema } from '../../src/domain/item-documents.js';
import { ITEM_FIELDS } from '../../src/domain/item-schema.js';

/** A batch as the check gives it (the schema's example): every field, in the schema's order. */
const CANONICAL_BATCH = ITEM_FIELDS.batch.example as NonNullable<typeof ITEM_FIELDS.batch.example>;

const check = (value: unknown) => {
  const problems: DocumentProblem[] = [];
  const checked = checkDocument(BatchSchema, value, 'batch', problems);
  return { checked, problems };
};

describe('checkDocument', () => {
  it('gives a document already as the check gives it back as it is', () => {
    const batch = structuredClone(CANONICAL_BATCH);
    const { checked, problems } = check(batch);
    expect(problems).toEqual([]);
    expect(checked).toBe(batch);
    expect((checked as typeof batch).tests).toBe(batch.tests);
  });

  it('normalizes a field after fields left as they are, keeping those before it', () => {
    // Only fields late in the schema's order need the check: the copy must hold the earlier ones too.
    const { checked, problems } = check({
      ...CANONICAL_BATCH,
      coa_url: ` ${CANONICAL_BATCH.coa_url} `,
      tests: { ...CANONICAL_BATCH.tests, mycotoxins: 'PASS' },
    });
    expect(problems).toEqual([]);
    expect(JSON.stringify(checked)).toBe(
      JSON.stringify({ ...CANONICAL_BATCH, tests: { ...CANONICAL_BATCH.tests, mycotoxins: 'pass' } }),
    );
  });

  it("puts a document's fields in the schema's order and fills what it leaves out", () => {
    const { tests, package_label, ...rest } = CANONICAL_BATCH;
    const given = { potency: tests.potency, pesticides: tests.pesticides };
    const { checked, problems } = check({ tests: given, ...rest, package_label });
    expect(problems).toEqual([]);
    expect(JSON.stringify(checked)).toBe(
      JSON.stringify({
        package_label,
        ...rest,
        tests: {
          ...given,
          microbials: 'not_tested',
          heavy_metals: 'not_tested',
          residual_solvents: 'not_tested',
          mycotoxins: 'not_tested',
        },
      }),
    );
  });

  it("copies a document whose fields are all as the check gives them but not in the schema's order", () => {
    const { checked, problems } = check(Object.fromEntries(Object.entries(CANONICAL_BATCH).reverse()));
    expect(problems).toEqual([]);
    expect(JSON.stringify(checked)).toBe(JSON.stringify(CANONICAL_BATCH));
  });

  it('names the path of each problem, however deep', () => {
    const { checked, problems } = check({
      ...CANONICAL_BATCH,
      tested_at: 'yesterday',
      tests: { ...CANONICAL_BATCH.tests, pesticides: 'maybe' },
    });
    expect(checked).toBeUndefined();
    expect(problems.map((problem) => problem.field)).toEqual(['batch.tested_at', 'batch.tests.pesticides']);
  });

  it('names the entry of a list whose entry has a problem, and copies a list whose entry it normalizes', () => {
    const images = [
      { url: 'https://example.com/1.jpg', alt: '', role: 'primary' },
      { url: 'https://example.com/2.jpg' },
    ];
    const list = Type.Array(ImageSchema);
    const problems: DocumentProblem[] = [];
    expect(JSON.stringify(checkDocument(list, images, 'images', problems))).toBe(
      JSON.stringify([images[0], { url: 'https://example.com/2.jpg', alt: '', role: 'gallery' }]),
    );
    expect(
      checkDocument(list, [images[0], { url: 'ftp://example.com/2.jpg' }], 'images', problems),
    ).toBeUndefined();
    expect(problems.map((problem) => problem.field)).toEqual(['images[1].url']);
  });
});

describe('checkAnalytes', () => {
  const analytes = (value: unknown) => {
    const problems: DocumentProblem[] = [];
    const checked = checkAnalytes('terpenes', value, 'terpenes', 30, problems);
    return { checked, problems };
  };

  it('gives an analyte that leaves out its status every field, in order', () => {
    const { checked, problems } = analytes([
      { code: 'limonene', min: 0.5, max: 0.6, unit: '%', basis: 'weight' },
    ]);
    expect(problems).toEqual([]);
    expect(JSON.stringify(checked)).toBe(
      JSON.stringify([
        { code: 'limonene', min: 0.5, max: 0.6, unit: '%', basis: 'weight', status: 'detected' },
      ]),
    );
  });

  it('refuses a field an analyte does not have, though it leaves out its status', () => {
    const { checked, problems } = analytes([
      { code: 'limonene', min: 0.5, unit: '%' },
      { code: 'linalool', min: 0.2, unit: '%', note: 'smells nice' },
    ]);
    expect(checked).toBeUndefined();
    expect(problems).toEqual([
      { field: 'terpenes[1]', message: expect.stringMatching(/unknown field note/) },
    ]);
  });

  it('names the entry and the field of a value out of range', () => {
    const { problems } = analytes([
      { code: 'limonene', min: 0.5, unit: '%' },
      { code: 'linalool', min: -1, max: 0.5, unit: '%' },
    ]);
    expect(problems.map((problem) => problem.field)).toEqual(['terpenes[1].min']);
  });
});
