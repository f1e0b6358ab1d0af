import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';

/** The schemas of the sync API's admin key routes (src/http/routes/admin/admin-keys.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  adminKey: {
    name: 'store-3-staff',
    scope: 'dispensary:3',
    created_at: '2026-11-25T12:00:00.000Z',
    revoked_at: null,
    last_used_at: '2026-11-25T12:05:00.000Z',
  },
  createdAdminKey: {
    name: 'store-3-staff',
    scope: 'dispensary:3',
    key: 'mak_X1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v',
  },
};

export const AdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String({ description: '"all", or "dispensary:ID" for a key limited to one dispensary.' }),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String({ description: 'Last use, to the minute; null if never used.' })),
  },
  { title: 'AdminKeySummary', examples: [EXAMPLES.adminKey] },
);

export const CreateAdminKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ description: '"all" or "dispensary:ID".' }),
  },
  {
    additionalProperties: false,
    title: 'AdminKeyInput',
    examples: [{ name: 'store-3-staff', scope: 'dispensary:3' }],
  },
);

export const CreatedAdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String(),
    key: Type.String({ description: 'Shown once.' }),
  },
  { title: 'CreatedAdminKey', examples: [EXAMPLES.createdAdminKey] },
);

export const NameParams = Type.Object({ name: Type.String({ maxLength: 64, examples: ['store-3-staff'] }) });
