import { type Static, type TSchema, Type } from 'typebox';
import { checkAnalytes } from './analyte-checks.js';
import { checkDocument, checkOptionalObject } from './document-checks.js';
import { AnalyteSchema, type DocumentProblem } from './item-documents.js';
import { Nullable } from './nullable.js';

/**
 * The kinds of field an item is declared with (item-schema.ts), their limits, and the builders its
 * declarations use: what a field is, apart from which fields the item has.
 */

export const LIMITS = {
  nameLength: 200,
  brandLength: 200,
  subtypeLength: 100,
  descriptionLength: 10_000,
  imageLength: 2_048,
  tagLength: 100,
  tagsPerList: 50,
  pricesPerItem: 100,
  amountMax: 1_000_000,
  stockMax: 1_000_000_000,
  milligramsMax: 1_000_000,
  analytesPerList: 60,
  imagesPerItem: 20,
  externalIdLength: 100,
  codeLength: 100,
  labelLength: 50,
} as const;

/**
 * How a field is checked, stored and written to CSV; its limits come from its schema.
 * - `id`: an integer in the schema's range, assigned when missing.
 * - `text`: trimmed text; required when the schema's minLength is 1, else "" when missing.
 * - `url`: trimmed http(s) URL text; null when missing.
 * - `category`: one of the schema's enum, in any letter case; required.
 * - `unit`: one of the schema's enum, exactly.
 * - `number`: a number in the schema's range; null when missing.
 * - `measure`: a required number above the schema's exclusiveMinimum.
 * - `money`: a non-negative amount with at most two decimals; the model and the table hold integer
 *   cents, in `<name>Cents` and `<name>_cents`.
 * - `list`: short strings; JSON text in the table, `;`-separated in a CSV cell; [] when missing.
 * - `flag`: true or false; 0/1 in the table; the schema's default (else true) when missing.
 * - `document`: a JSON value of the schema's shape (src/domain/item-documents.ts), checked and
 *   normalized by the field's `check`; JSON text in the table; in a CSV cell, the field's `cell`
 *   syntax (src/services/menu-files/cells.ts, docs/rich-item.md). A nullable one is null when missing,
 *   a list [].
 * - `entries`: the price entries (PRICE_FIELDS); a table of their own.
 *
 * A `money` field whose schema is nullable is null when missing.
 */
export type FieldKind =
  | 'id'
  | 'text'
  | 'url'
  | 'category'
  | 'unit'
  | 'number'
  | 'measure'
  | 'money'
  | 'list'
  | 'flag'
  | 'document'
  | 'entries';

/** How a `document` field is written in a CSV cell (docs/rich-item.md). */
export type CellSyntax = 'analytes' | 'images' | 'pairs';

/** Checks a document field's value; the normalized value, or undefined after pushing problems. */
export type DocumentCheck = (value: unknown, path: string, problems: DocumentProblem[]) => unknown;

export interface Field<K extends FieldKind = FieldKind, S extends TSchema = TSchema> {
  kind: K;
  schema: S;
  /** The value of this field in the one example item that every documented example derives from. */
  example: Static<S>;
  /** A `document` field's CSV cell syntax. */
  cell?: CellSyntax;
  /** A `document` field's check. */
  check?: DocumentCheck;
}

export const field = <K extends FieldKind, S extends TSchema>(
  kind: K,
  schema: S,
  example: Static<S>,
): Field<K, S> => ({
  kind,
  schema,
  example,
});

/** A structured field: checked against its schema, or by `check` where it has rules of its own. */
export const document = <S extends TSchema>(
  schema: S,
  example: Static<S>,
  cell: CellSyntax,
  check: DocumentCheck = (value, path, problems) => checkDocument(schema, value, path, problems),
): Field<'document', S> => ({ kind: 'document', schema, example, cell, check });

export const analytes = (which: 'cannabinoids' | 'terpenes', example: Static<typeof AnalyteSchema>[]) => {
  const schema = Type.Array(AnalyteSchema, {
    maxItems: LIMITS.analytesPerList,
    description:
      which === 'cannabinoids'
        ? "The lab's cannabinoid results (codes d9-thc, d9-thca, cbd, cbda, cbg, cbn, thcv, cbc, d8-thc, total-thc, total-cbd, …)."
        : "The lab's terpene results (codes beta-myrcene, limonene, beta-caryophyllene, linalool, alpha-pinene, …).",
  });
  return document(schema, example, 'analytes', (value, path, problems) =>
    checkAnalytes(which, value, path, LIMITS.analytesPerList, problems),
  );
};

const orNull = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);
/** A structured value that may be absent: null when missing, or when none of its fields says anything. */
export const optionalObject = <S extends TSchema>(schema: S, example: Static<S> | null) => {
  const nullable = orNull(schema);
  return document(nullable, example as Static<typeof nullable>, 'pairs', (value, path, problems) =>
    checkOptionalObject(nullable, value, path, problems),
  );
};

export const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const percent = (what: string) =>
  Nullable(Type.Number({ minimum: 0, maximum: 100, description: `Percent ${what}; null when unknown.` }));
export const milligrams = (what: string) =>
  Nullable(
    Type.Number({
      minimum: 0,
      maximum: LIMITS.milligramsMax,
      description: `Milligrams of ${what}; null when unknown.`,
    }),
  );
export const tags = () =>
  Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.tagLength, pattern: '^[^;]*$' }), {
    maxItems: LIMITS.tagsPerList,
  });
