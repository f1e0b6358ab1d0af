import { Type } from 'typebox';

/** The schemas of the console's sign-in routes (src/http/routes/admin/session.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  session: {
    admin_key: { name: 'operator', scope: 'all' },
    csrf_token: 'q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ',
    expires_at: '2026-11-26T00:00:00.000Z',
    idle_timeout_seconds: 1800,
  },
};

export const SignInBody = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 200, description: 'An admin key (mak_…).' }) },
  { additionalProperties: false, title: 'SignIn', examples: [{ key: 'mak_…' }] },
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
  { title: 'AdminSession', examples: [EXAMPLES.session] },
);
