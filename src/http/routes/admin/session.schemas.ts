import { Type } from 'typebox';
import { EndedSessionsOut } from './shared.schemas.js';

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
  {
    email: Type.Optional(Type.String({ maxLength: 254, description: 'An account’s email (with password).' })),
    password: Type.Optional(Type.String({ maxLength: 1024, description: 'The account’s password.' })),
    key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Or an admin key (mak_…), for operators.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'SignIn',
    description: 'Either email and password, or key.',
    examples: [{ email: 'manager@example.com', password: 'correct horse battery' }],
  },
);

export const SignedOutOut = EndedSessionsOut(
  'SignedOut',
  'How many sessions of the account ended, this one included.',
  2,
);

export const SessionOut = Type.Object(
  {
    admin_key: Type.Optional(
      Type.Object({ name: Type.String(), scope: Type.String() }, { additionalProperties: false }),
    ),
    account: Type.Optional(
      Type.Object(
        {
          id: Type.Integer(),
          email: Type.String(),
          role: Type.String(),
          dispensary_ids: Type.Array(Type.Integer()),
        },
        { additionalProperties: false },
      ),
    ),
    csrf_token: Type.String({
      description: 'Send it as X-CSRF-Token on every write made with the session cookie.',
    }),
    expires_at: Type.String({ description: 'The absolute end of the session.' }),
    idle_timeout_seconds: Type.Integer({ description: 'The session ends after this long unused.' }),
  },
  {
    additionalProperties: false,
    title: 'AdminSession',
    description: "Who is signed in: an account, or (the operators' way) an admin key.",
    examples: [EXAMPLES.session],
  },
);

export const EnrolledSessionOut = Type.Object(
  {
    ...SessionOut.properties,
    recovery_codes: Type.Array(Type.String(), {
      description: 'Ten recovery codes, each usable once instead of a code. Shown once: keep them safe.',
    }),
  },
  {
    additionalProperties: false,
    title: 'EnrolledSession',
    description: 'Signed in, with one-time codes just turned on.',
    examples: [
      {
        account: { id: 2, email: 'manager@example.com', role: 'manager', dispensary_ids: [1] },
        csrf_token: 'q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ',
        expires_at: '2026-11-26T00:00:00.000Z',
        idle_timeout_seconds: 1800,
        recovery_codes: ['abcde-fghij', 'kmnpq-rstuv'],
      },
    ],
  },
);
