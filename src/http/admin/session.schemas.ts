import { Type } from 'typebox';
import { ADMIN_EXAMPLES } from './examples.js';

/** The schemas of the console's sign-in routes (src/http/admin/session.ts). */

export const SignInBody = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 200, description: 'An admin key (mak_…).' }) },
  { additionalProperties: false, examples: [{ key: 'mak_…' }] },
);

export const SessionOut = Type.Object(
  {
    admin_key: Type.Object({ name: Type.String(), scope: Type.String() }),
    csrf_token: Type.String({
      description: 'Send it as X-CSRF-Token on every write made with the session cookie.',
    }),
    expires_at: Type.String({ description: 'The absolute end of the session.' }),
    idle_timeout_seconds: Type.Integer({ description: 'The session ends after this long unused.' }),
  },
  { examples: [ADMIN_EXAMPLES.session] },
);
