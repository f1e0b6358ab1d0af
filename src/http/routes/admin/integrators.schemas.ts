import { Type } from 'typebox';
import { IdText } from './shared.schemas.js';

/** The schemas of the integrators' routes (src/http/routes/admin/integrators.ts). */

const EXAMPLE = {
  id: 7,
  email: 'dev@example.com',
  name: 'Dana Developer',
  company: 'Menu Apps Inc.',
  building: 'A menu app for phones',
  status: 'approved',
  credential: 'integrator-7',
  created_at: '2026-11-25T12:00:00.000Z',
  updated_at: '2026-11-25T13:00:00.000Z',
};

export const IntegratorOut = Type.Object(
  {
    id: Type.Integer({ description: 'The integrator’s account id.' }),
    email: Type.String(),
    name: Type.String(),
    company: Type.String(),
    building: Type.String({ description: 'What it builds, in its own words.' }),
    status: Type.Union(
      [
        Type.Literal('unconfirmed'),
        Type.Literal('waiting'),
        Type.Literal('approved'),
        Type.Literal('declined'),
      ],
      {
        description:
          'unconfirmed: its email link is not used yet; waiting: for the operator; approved: it signs in and has a credential; declined.',
      },
    ),
    credential: Type.Union([Type.String(), Type.Null()], {
      description: 'The username of the API credential approval made; null before.',
    }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false, title: 'Integrator', examples: [EXAMPLE] },
);

export const IntegratorParams = Type.Object({ id: IdText('Integrator (account) id') });

const REQUEST_EXAMPLE = {
  id: 3,
  integrator_id: 7,
  email: 'dev@example.com',
  company: 'Menu Apps Inc.',
  building: 'A menu app for phones',
  dispensary_id: 1,
  dispensary_name: 'Green Leaf Collective',
  status: 'approved',
  token_issued: false,
  decided_by: 'account:manager@example.com',
  created_at: '2026-11-25T14:00:00.000Z',
  updated_at: '2026-11-25T15:00:00.000Z',
};

export const AccessRequestOut = Type.Object(
  {
    id: Type.Integer(),
    integrator_id: Type.Integer(),
    email: Type.String(),
    company: Type.String(),
    building: Type.String(),
    dispensary_id: Type.Integer(),
    dispensary_name: Type.String(),
    status: Type.Union([Type.Literal('waiting'), Type.Literal('approved'), Type.Literal('declined')], {
      description:
        'waiting: for the dispensary’s managers; approved: the integrator’s credential may read it.',
    }),
    token_issued: Type.Boolean({
      description: 'Whether the integrator took its own token for the dispensary (shown to it once).',
    }),
    decided_by: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false, title: 'AccessRequest', examples: [REQUEST_EXAMPLE] },
);

export const AccessRequestParams = Type.Object({ id: IdText('Access request id') });

export const PortalOut = Type.Object(
  { integrator: IntegratorOut, access: Type.Array(AccessRequestOut) },
  {
    additionalProperties: false,
    title: 'IntegratorPortal',
    examples: [{ integrator: EXAMPLE, access: [REQUEST_EXAMPLE] }],
  },
);

export const RotatedPasswordOut = Type.Object(
  {
    username: Type.String(),
    password: Type.String({ description: 'The credential’s new password, shown once.' }),
  },
  {
    additionalProperties: false,
    title: 'RotatedCredentialPassword',
    examples: [{ username: 'integrator-7', password: 'kT3vQ9xL2mN8pR4sW6yZ1bC5dF7gH0jJ' }],
  },
);

export const AccessRequestBody = Type.Object(
  {
    dispensary: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The dispensary’s public name, as its menu page shows it, or its page’s slug (/m/SLUG).',
    }),
  },
  {
    additionalProperties: false,
    title: 'AccessRequestInput',
    examples: [{ dispensary: 'Green Leaf Collective' }],
  },
);

export const AccessTokenOut = Type.Object(
  {
    dispensary_id: Type.Integer(),
    token: Type.String({
      description: 'Your own token for this dispensary, shown once: send it as the dispensary token.',
    }),
  },
  {
    additionalProperties: false,
    title: 'IntegratorAccessToken',
    examples: [{ dispensary_id: 1, token: 'mT4kZ8qW1xV6nB3cL9pR2sY7hJ5gF0dA' }],
  },
);
