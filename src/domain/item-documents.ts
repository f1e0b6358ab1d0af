import { type Static, type TSchema, Type } from 'typebox';
import {
  ANALYTE_STATUSES,
  IMAGE_ROLES,
  type LAB_TESTS,
  POTENCY_BASES,
  POTENCY_UNITS,
  type PotencyBasis,
  type PotencyUnit,
  STRAIN_TYPES,
  TEST_OUTCOMES,
  UNIT_MAXIMUM,
} from './lab-vocabulary.js';
import { Nullable } from './nullable.js';

/**
 * The rich item's structured values (lab results, batch, strain, images, serving): each a JSON
 * document declared here as a TypeBox schema, which is its OpenAPI component (by its title), its type
 * and the shape `checkDocument` checks and normalizes it to. Each is kept in a column as JSON text.
 */

/** A problem with a path such as `cannabinoids[2].unit` (the caller's prefix before it). */
export interface DocumentProblem {
  field: string;
  message: string;
}

const text = (maxLength: number, description?: string) =>
  Nullable(Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) }));
const choice = <T extends string>(values: readonly T[], extra: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...extra });

const potencyValue = (what: string) =>
  Nullable(
    Type.Number({
      minimum: 0,
      maximum: UNIT_MAXIMUM.mg,
      description: `${what}; null unless status is detected. At most 100 for %, 1000 for mg/g and mg/ml.`,
    }),
  );

export const AnalyteSchema = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 40,
      description:
        'An OpenTHC analyte code (d9-thc, d9-thca, cbd, …; terpenes beta-myrcene, limonene, …). Input also takes common spellings (THC, THCa, Myrcene); reads send the code.',
    }),
    min: potencyValue('The lowest value (equal to max for a single value)'),
    max: potencyValue('The highest value'),
    unit: choice<PotencyUnit>(POTENCY_UNITS, {
      description: '% , mg/g and mg/ml with basis weight; mg with package or serving.',
    }),
    basis: choice<PotencyBasis>(POTENCY_BASES, {
      description: 'weight: a concentration in the product; package or serving: an amount in each.',
    }),
    status: choice(ANALYTE_STATUSES, {
      description:
        'detected (min and max given), nd (not detected), lt_loq (below the limit of quantitation) or not_tested.',
    }),
  },
  { additionalProperties: false, title: 'Analyte' },
);
export type Analyte = Static<typeof AnalyteSchema>;

const outcome = () => choice(TEST_OUTCOMES, { default: 'not_tested' });

export const YMD = '^\\d{4}-\\d{2}-\\d{2}$';
export const URL_PATTERN = '^https?://\\S+$';

export const BatchSchema = Type.Object(
  {
    package_label: Nullable(
      Type.String({
        pattern: '^[A-Z0-9]{24}$',
        description: 'The METRC package tag: 24 upper-case letters and digits.',
      }),
    ),
    batch_number: text(100),
    lab_name: text(200),
    lab_license: text(100),
    tested_at: Nullable(Type.String({ pattern: YMD, description: 'The day the lab tested it, YYYY-MM-DD.' })),
    coa_url: Nullable(
      Type.String({ maxLength: 2_048, pattern: URL_PATTERN, description: 'The certificate of analysis.' }),
    ),
    passed: Nullable(Type.Boolean({ description: 'Whether the batch passed every test it had.' })),
    tests: Type.Object(
      {
        potency: outcome(),
        pesticides: outcome(),
        microbials: outcome(),
        heavy_metals: outcome(),
        residual_solvents: outcome(),
        mycotoxins: outcome(),
      } satisfies Record<(typeof LAB_TESTS)[number], TSchema>,
      { additionalProperties: false, description: 'Each test: pass, fail or not_tested (when left out).' },
    ),
  },
  { additionalProperties: false, title: 'Batch' },
);

export const StrainSchema = Type.Object(
  {
    name: text(200),
    type: Nullable(choice(STRAIN_TYPES)),
    lineage: text(500, 'The parents, as free text ("Blueberry × Haze").'),
  },
  { additionalProperties: false, title: 'Strain' },
);

export const ImageSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2_048, pattern: URL_PATTERN }),
    alt: Type.String({
      maxLength: 300,
      default: '',
      description: 'Text for who cannot see it; "" when none.',
    }),
    role: choice(IMAGE_ROLES, {
      default: 'gallery',
      description: 'primary (the first is `image`), gallery (the default) or label.',
    }),
  },
  { additionalProperties: false, title: 'Image' },
);

export const ServingSchema = Type.Object(
  {
    servings_per_pack: Nullable(Type.Integer({ minimum: 1, maximum: 10_000 })),
    thc_mg_per_serving: Nullable(Type.Number({ minimum: 0, maximum: 100_000 })),
    cbd_mg_per_serving: Nullable(Type.Number({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false, title: 'Serving' },
);
