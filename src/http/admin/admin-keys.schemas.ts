import { Type } from 'typebox';
import { Nullable } from '../../domain/nullable.js';
import { ADMIN_EXAMPLES } from './examples.js';

/** The schemas of the sync API's admin key routes (src/http/admin/admin-keys.ts). */

export const AdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String({ description: '"all", or "dispensary:ID" for a key limited to one dispensary.' }),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String({ description: 'Last use, to the minute; null if never used.' })),
  },
  { examples: [ADMIN_EXAMPLES.adminKey] },
);

export const CreateAdminKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ description: '"all" or "dispensary:ID".' }),
  },
  { additionalProperties: false, examples: [{ name: 'store-3-staff', scope: 'dispensary:3' }] },
);

export const CreatedAdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String(),
    key: Type.String({ description: 'Shown once.' }),
  },
  { examples: [ADMIN_EXAMPLES.createdAdminKey] },
);

export const NameParams = Type.Object({ name: Type.String({ maxLength: 64, examples: ['store-3-staff'] }) });
