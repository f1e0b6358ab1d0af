import { Type } from 'typebox';
import { IdText } from './shared.schemas.js';

/** The schemas of the sync API's account routes (src/http/routes/admin/accounts.ts) and one-time links. */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  account: {
    id: 2,
    email: 'manager@example.com',
    role: 'manager',
    dispensary_ids: [1],
    active: false,
    created_at: '2026-11-25T12:00:00.000Z',
    updated_at: '2026-11-25T12:00:00.000Z',
  },
  link: 'http://127.0.0.1:8080/console/link#q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ',
};

const Role = Type.Union([Type.Literal('operator'), Type.Literal('manager'), Type.Literal('staff')], {
  description:
    'operator: everything; manager: the menu, store, publishing, webhooks, token and staff of its dispensaries; staff: their menu and stock.',
});
/** A role as accounts carry it: integrators register at /developers, they are never invited. */
const AccountRole = Type.Union(
  [Type.Literal('operator'), Type.Literal('manager'), Type.Literal('staff'), Type.Literal('integrator')],
  {
    description:
      'operator: everything; manager: the menu, store, publishing, webhooks, token and staff of its dispensaries; staff: their menu and stock; integrator: its own portal only (registered at /developers).',
  },
);
const DispensaryIds = Type.Array(Type.Integer({ minimum: 1 }), {
  maxItems: 1000,
  description: 'The dispensaries a manager or staff account covers (none for an operator).',
});

export const AccountOut = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: AccountRole,
    dispensary_ids: DispensaryIds,
    active: Type.Boolean({ description: 'False until the invitation is accepted.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false, title: 'Account', examples: [EXAMPLES.account] },
);

export const IssuedLinkOut = Type.Object(
  {
    account: AccountOut,
    link: Type.String({ description: 'The one-time link, shown once: it works once, for 7 days.' }),
    expires_at: Type.String(),
    emailed: Type.Boolean({ description: 'Whether it was also emailed (the server has --smtp-url).' }),
    email_error: Type.Optional(
      Type.String({
        description:
          'Why the SMTP server did not take the email, when it did not: the link works all the same, send it yourself.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'IssuedAccountLink',
    examples: [
      {
        account: EXAMPLES.account,
        link: EXAMPLES.link,
        expires_at: '2026-12-02T12:00:00.000Z',
        emailed: false,
      },
    ],
  },
);

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: Role,
    dispensary_ids: Type.Optional(DispensaryIds),
  },
  {
    additionalProperties: false,
    title: 'AccountInput',
    examples: [{ email: 'manager@example.com', role: 'manager', dispensary_ids: [1] }],
  },
);

export const ChangeAccountBody = Type.Object(
  { role: Type.Optional(Role), dispensary_ids: Type.Optional(DispensaryIds) },
  {
    additionalProperties: false,
    title: 'AccountPatch',
    examples: [{ role: 'staff', dispensary_ids: [1, 2] }],
  },
);

export const AccountParams = Type.Object({ id: IdText('Account id') });

export const LinkBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The part of the link after #.' }) },
  {
    additionalProperties: false,
    title: 'AccountLinkInput',
    examples: [{ token: 'q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ' }],
  },
);

export const LinkOut = Type.Object(
  {
    email: Type.String(),
    purpose: Type.Union([Type.Literal('invite'), Type.Literal('reset')]),
  },
  {
    additionalProperties: false,
    title: 'AccountLink',
    examples: [{ email: 'manager@example.com', purpose: 'invite' }],
  },
);

export const AcceptLinkBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The part of the link after #.' }),
    password: Type.String({ maxLength: 1024, description: 'The password chosen: 12 to 200 characters.' }),
  },
  {
    additionalProperties: false,
    title: 'AcceptAccountLink',
    examples: [{ token: 'q8Zb2kX1vN4mR7tY0wC3fH6jD9gA5sL2pE8uK1iO4nQ', password: 'correct horse battery' }],
  },
);
