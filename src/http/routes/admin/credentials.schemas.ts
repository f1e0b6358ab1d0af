import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';

/** The schemas of the sync API's credential routes (src/http/routes/admin/credentials.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  issueCredential: { username: 'menu-board' },
  credential: {
    username: 'menu-board',
    created_at: '2026-11-25T12:00:00.000Z',
    revoked_at: null,
    expires_at: null,
    last_used_at: '2026-11-25T12:05:00.000Z',
    dispensaries: null,
  },
  issuedCredential: { username: 'menu-board', password: 'kP4w9Zs2QxL7mN1vR8tY3bC6fH0jD5gA' },
};

export const UsernameParams = Type.Object({
  username: Type.String({ maxLength: 64, examples: ['menu-board'] }),
});

export const IssueCredentialBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    expires_at: Type.Optional(
      Nullable(Type.String({ description: 'RFC 3339 time; the credential stops working then.' })),
    ),
    dispensaries: Type.Optional(
      Nullable(
        Type.Array(Type.Integer(), { description: 'The only dispensary ids this credential may read.' }),
      ),
    ),
  },
  { additionalProperties: false, title: 'CredentialInput', examples: [EXAMPLES.issueCredential] },
);

export const CredentialOut = Type.Object(
  {
    username: Type.String(),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    expires_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String()),
    dispensaries: Nullable(Type.Array(Type.Integer())),
  },
  { title: 'CredentialSummary', examples: [EXAMPLES.credential] },
);

export const IssuedCredentialOut = Type.Object(
  {
    username: Type.String(),
    password: Type.String({ description: 'Shown once.' }),
  },
  { title: 'IssuedCredential', examples: [EXAMPLES.issuedCredential] },
);
