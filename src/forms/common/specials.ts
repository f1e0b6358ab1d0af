import { Type } from 'typebox';
import { SPECIAL_EXAMPLE, SPECIAL_OUT_FIELDS, type Special } from '../../domain/special-schema.js';
import { specialRecordOf } from '../../domain/validate-special.js';

/** A dispensary's special as the public read gives it: what the sync API gives, but whose and when made. */
export const PublicSpecialSchema = Type.Object(
  {
    id: Type.Integer(),
    ...SPECIAL_OUT_FIELDS,
    updated_at: Type.String({ format: 'date-time' }),
  },
  {
    additionalProperties: false,
    title: 'PublicSpecial',
    examples: [
      {
        id: 1,
        ...SPECIAL_EXAMPLE,
        starts_at: '2026-04-01T00:00:00.000Z',
        ends_at: '2026-07-01T00:00:00.000Z',
        applies_to: { item_ids: [], external_ids: [], brands: [], product_types: ['Flower'], tags: [] },
        updated_at: '2026-03-20T10:00:00.000Z',
      },
    ],
  },
);

export const PublicSpecialsSchema = Type.Array(PublicSpecialSchema);

export function publicSpecialRecord(special: Special) {
  return { id: special.id, ...specialRecordOf(special), updated_at: special.updatedAt };
}
