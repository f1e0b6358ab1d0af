/**
 * The closed lists the rich item's lab, strain and image fields draw from (docs/rich-item.md). Analyte
 * codes are OpenTHC's lab metric stubs (openthc/api, etc/lab-metric): what a lab result and a point of
 * sale can both be mapped to. People type other spellings ("THC", "THCa", "Myrcene"): ANALYTE_ALIASES
 * maps them to the codes, which are what is stored and sent.
 */

export const CANNABINOID_CODES = [
  'd9-thc',
  'd9-thca',
  'd8-thc',
  'thcv',
  'thcva',
  'cbd',
  'cbda',
  'cbdv',
  'cbdva',
  'cbg',
  'cbga',
  'cbn',
  'cbc',
  'cbca',
  'cbl',
  'total-thc',
  'total-cbd',
  'total-cannabinoids',
] as const;

export const TERPENE_CODES = [
  'alpha-pinene',
  'beta-pinene',
  'beta-myrcene',
  'limonene',
  'linalool',
  'beta-caryophyllene',
  'caryophyllene-oxide',
  'alpha-humulene',
  'terpinolene',
  'ocimene',
  'alpha-bisabolol',
  'nerolidol',
  'camphene',
  'eucalyptol',
  'geraniol',
  'guaiol',
  'isopulegol',
  'p-cymene',
  'delta-3-carene',
  'alpha-terpinene',
  'gamma-terpinene',
  'terpineol',
  'borneol',
  'fenchol',
  'valencene',
  'sabinene',
  'total-terpenes',
] as const;

/** What people type for a code besides the code itself (compared as `aliasKey` spells them). */
const TYPED_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  'd9-thc': ['THC', 'Delta-9 THC', 'Δ9-THC', 'D9'],
  'd9-thca': ['THCa', 'THC-A', 'Delta-9 THCA'],
  'd8-thc': ['Delta-8 THC', 'Δ8-THC', 'D8'],
  'total-thc': ['Total THC', 'TTHC'],
  'total-cbd': ['Total CBD', 'TCBD'],
  'beta-myrcene': ['Myrcene', 'β-Myrcene', 'b-Myrcene'],
  'beta-caryophyllene': ['Caryophyllene', 'β-Caryophyllene', 'b-Caryophyllene'],
  'alpha-pinene': ['Pinene', 'α-Pinene', 'a-Pinene'],
  'beta-pinene': ['β-Pinene', 'b-Pinene'],
  'alpha-humulene': ['Humulene', 'α-Humulene', 'a-Humulene'],
  'alpha-bisabolol': ['Bisabolol', 'α-Bisabolol', 'a-Bisabolol'],
  limonene: ['d-Limonene'],
  'delta-3-carene': ['Carene', '3-Carene', 'Δ3-Carene'],
  // OpenTHC lab metric stubs and names that differ from the codes.
  'p-cymene': ['Cymene'],
  terpineol: ['α-Terpineol', 'a-Terpineol', 'alpha-Terpineol'],
  'total-cannabinoids': ['Total Cannabinoid', 'Total Cannabinoids'],
};

/** A spelling reduced to letters and digits, lower case, Greek letters written out. */
export const aliasKey = (spelling: string) =>
  spelling
    .toLowerCase()
    .replaceAll('α', 'alpha')
    .replaceAll('β', 'beta')
    .replaceAll('γ', 'gamma')
    .replaceAll('δ', 'delta')
    .replaceAll('Δ', 'delta')
    .replace(/[^a-z0-9]/g, '');

function aliasesOf(codes: readonly string[]): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const code of codes) {
    for (const spelling of [code, ...(TYPED_SPELLINGS[code] ?? [])]) map.set(aliasKey(spelling), code);
  }
  return map;
}

export const CANNABINOID_ALIASES = aliasesOf(CANNABINOID_CODES);
export const TERPENE_ALIASES = aliasesOf(TERPENE_CODES);

export const POTENCY_UNITS = ['%', 'mg', 'mg/g', 'mg/ml'] as const;
export type PotencyUnit = (typeof POTENCY_UNITS)[number];

export const POTENCY_BASES = ['weight', 'package', 'serving'] as const;
export type PotencyBasis = (typeof POTENCY_BASES)[number];

/**
 * Which unit fits which basis: a concentration (`%`, mg/g, mg/ml) is of the product's weight (or
 * volume); an amount (mg) is per package or per serving. The first unit of a basis is its default.
 */
export const UNITS_OF_BASIS: Readonly<Record<PotencyBasis, readonly PotencyUnit[]>> = {
  weight: ['%', 'mg/g', 'mg/ml'],
  package: ['mg'],
  serving: ['mg'],
};

/** The largest value of a unit: a share of 100, or of 1,000 mg in a gram or millilitre. */
export const UNIT_MAXIMUM: Readonly<Record<PotencyUnit, number>> = {
  '%': 100,
  'mg/g': 1000,
  'mg/ml': 1000,
  mg: 1_000_000,
};

export const ANALYTE_STATUSES = ['detected', 'nd', 'lt_loq', 'not_tested'] as const;

export const STRAIN_TYPES = [
  'indica',
  'indica_dominant',
  'hybrid',
  'sativa_dominant',
  'sativa',
  'high_cbd',
] as const;

export const IMAGE_ROLES = ['primary', 'gallery', 'label'] as const;

export const LAB_TESTS = [
  'potency',
  'pesticides',
  'microbials',
  'heavy_metals',
  'residual_solvents',
  'mycotoxins',
] as const;

export const TEST_OUTCOMES = ['pass', 'fail', 'not_tested'] as const;

export const MENU_TYPES = ['rec', 'med'] as const;
