import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { specialRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf, dispensaryOf } from './auth.js';
import type { AdminContext } from './context.js';
import { adminRoutes } from './route.js';
import { IdParams } from './shared.schemas.js';
import { CreateSpecialBody, PatchSpecialBody, SpecialOut, SpecialParams } from './specials.schemas.js';

const tags = ['Sync API: specials'];

/** The special of the path (`:special_id`; the route schema has checked it is a number). */
const specialOf = (request: { params: { special_id: string } }) => Number(request.params.special_id);

/**
 * Each dispensary's specials. A key limited to one dispensary manages that one's only (403 for
 * another's, as every route under /dispensaries/:id).
 */
export const specialRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { specials } = services;
  const route = adminRoutes(app, write, tags);

  route.read('/dispensaries/:id/specials', {
    operationId: 'listSpecials',
    summary: 'List a dispensary’s specials',
    schema: { params: IdParams, response: { 200: Type.Array(SpecialOut) } },
    run: async (request) => (await specials.list(dispensaryOf(request))).map(specialRecord),
  });

  route.write('POST', '/dispensaries/:id/specials', {
    operationId: 'createSpecial',
    summary: 'Create a special',
    description:
      'Each price entry of the items it targets gets the special’s price while it applies, when that is lower (the best special of an entry wins; specials do not stack). Items whose price changes now are changes of the live feed; so are they at each start and end of the special, with no write by anyone.',
    schema: { params: IdParams, body: CreateSpecialBody, response: { 201: SpecialOut } },
    run: async (request) =>
      specialRecord(await specials.create(dispensaryOf(request), request.body, actorOf(request))),
  });

  route.read('/dispensaries/:id/specials/:special_id', {
    operationId: 'getSpecial',
    summary: 'Read a special',
    schema: { params: SpecialParams, response: { 200: SpecialOut } },
    run: async (request) => specialRecord(await specials.get(dispensaryOf(request), specialOf(request))),
  });

  route.write('PATCH', '/dispensaries/:id/specials/:special_id', {
    operationId: 'changeSpecial',
    summary: 'Change some fields of a special',
    description: 'The special is checked whole after the change; a refused change changes nothing.',
    schema: { params: SpecialParams, body: PatchSpecialBody, response: { 200: SpecialOut } },
    run: async (request) =>
      specialRecord(
        await specials.change(dispensaryOf(request), specialOf(request), request.body, actorOf(request)),
      ),
  });

  route.write('DELETE', '/dispensaries/:id/specials/:special_id', {
    operationId: 'deleteSpecial',
    summary: 'Delete a special',
    schema: { params: SpecialParams, response: noContent('Deleted.') },
    run: async (request) => {
      await specials.remove(dispensaryOf(request), specialOf(request), actorOf(request));
    },
  });
};
