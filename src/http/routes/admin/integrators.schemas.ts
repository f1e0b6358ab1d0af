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
