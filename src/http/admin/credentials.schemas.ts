import { Type } from 'typebox';
import { Nullable } from '../../domain/nullable.js';
import { ADMIN_EXAMPLES } from './examples.js';

/** The schemas of the sync API's credential routes (src/http/admin/credentials.ts). */

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
  { examples: [ADMIN_EXAMPLES.issueCredential] },
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
  { examples: [ADMIN_EXAMPLES.credential] },
);

export const IssuedCredentialOut = Type.Object(
  {
    username: Type.String(),
    password: Type.String({ description: 'Shown once.' }),
  },
  { examples: [ADMIN_EXAMPLES.issuedCredential] },
);
