import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';
import {
  SPECIAL_EXAMPLE,
  SPECIAL_FIELDS,
  SPECIAL_OUT_FIELDS,
  SpecialInputSchema,
  SpecialPatchSchema,
} from '../../../domain/special-schema.js';
import { CHECKED_BY_CODE } from '../../pipeline/document-notes.js';
import { DispensaryId, IdText, OptionalCount } from './shared.schemas.js';

/** The schemas of the sync API's specials routes (src/http/routes/admin/specials.ts). */

export const SpecialParams = Type.Object({
  id: DispensaryId,
  special_id: IdText('Special id'),
});

/**
 * What the schema leaves to the special validator (src/domain/validate-special.ts): it names every
 * problem by its field path, which one schema failure could not. Anything but null: a missing body
 * (which Fastify checks as null) is refused as empty, since these routes need one (body-parsers.ts).
 */
const CHECKED_BY_VALIDATOR = Type.Unsafe<unknown>({
  not: { type: 'null' },
  description: 'Any other value is refused with 400 invalid_request, each problem named by its field path.',
  [CHECKED_BY_CODE]: true,
});

export const CreateSpecialBody = Type.Unsafe<unknown>({
  anyOf: [SpecialInputSchema, CHECKED_BY_VALIDATOR],
  description: 'A new special.',
  examples: [SPECIAL_EXAMPLE],
});

export const PatchSpecialBody = Type.Unsafe<unknown>({
  anyOf: [SpecialPatchSchema, CHECKED_BY_VALIDATOR],
  description: 'Fields to change, for example {"ends_at": "2026-08-01T00:00:00Z"}.',
  examples: [{ ends_at: '2026-08-01T00:00:00Z' }],
});

export const SpecialOut = Type.Object(
  {
    id: Type.Integer(),
    dispensary_id: Type.Integer(),
    ...SPECIAL_OUT_FIELDS,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  {
    additionalProperties: false,
    title: 'Special',
    examples: [
      {
        id: 1,
        dispensary_id: 1,
        ...SPECIAL_EXAMPLE,
        starts_at: '2026-04-01T00:00:00.000Z',
        ends_at: '2026-07-01T00:00:00.000Z',
        applies_to: { item_ids: [], external_ids: [], brands: [], product_types: ['Flower'], tags: [] },
        created_at: '2026-03-20T10:00:00.000Z',
        updated_at: '2026-03-20T10:00:00.000Z',
      },
    ],
  },
);

export const ScheduleQuerystring = Type.Object({
  days: OptionalCount('^([1-9]|[12][0-9]|3[01])$', 31, '1 to 31 days ahead, from now (default 7).'),
});

const SchedulePeriod = Type.Object(
  {
    starts_at: Type.String({
      format: 'date-time',
      description: 'When it starts applying; `from` for a span already under way.',
    }),
    ends_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When it stops (exclusive), past `to` when it runs on; null: it does not stop.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScheduleOut = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Now: the start of the preview.' }),
    to: Type.String({ format: 'date-time', description: '`days` days later.' }),
    timezone: Nullable(
      Type.String({ description: 'The store’s time zone the schedule is read in; null: UTC.' }),
    ),
    specials: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          name: SPECIAL_FIELDS.name,
          menu_type: SPECIAL_FIELDS.menu_type,
          periods: Type.Array(SchedulePeriod, {
            description: 'Each span it applies in the preview, in order; empty when it does not apply then.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'SpecialsSchedule',
    description:
      'When each of a dispensary’s specials applies in the coming days, worked out in the store’s time zone.',
    examples: [
      {
        from: '2026-07-01T15:00:00.000Z',
        to: '2026-07-08T15:00:00.000Z',
        timezone: 'America/Los_Angeles',
        specials: [
          {
            id: 1,
            name: 'Happy hour',
            menu_type: 'both',
            periods: [
              { starts_at: '2026-07-01T23:00:00.000Z', ends_at: '2026-07-02T01:00:00.000Z' },
              { starts_at: '2026-07-02T23:00:00.000Z', ends_at: '2026-07-03T01:00:00.000Z' },
            ],
          },
        ],
      },
    ],
  },
);
