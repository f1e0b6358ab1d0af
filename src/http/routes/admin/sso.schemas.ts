import { Type } from 'typebox';

/** The schemas of the single sign-on routes (src/http/routes/admin/sso.ts). */

export const SsoOut = Type.Object(
  {
    configured: Type.Boolean({ description: 'Whether this server signs people in with OpenID Connect.' }),
    sign_in_url: Type.Optional(
      Type.String({
        description: 'Where the browser goes to sign in with single sign-on (when configured).',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'SingleSignOn',
    examples: [{ configured: true, sign_in_url: '/admin/v1/session/sso/sign-in' }],
  },
);
