import { Type } from 'typebox';
import { specialRecord, specialsScheduleRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf, pathId } from './auth.js';
import { adminPlugin } from './route.js';
import { IdParams } from './shared.schemas.js';
import {
  CreateSpecialBody,
  PatchSpecialBody,
  ScheduleOut,
  ScheduleQuerystring,
  SpecialOut,
  SpecialParams,
} from './specials.schemas.js';

/** The special of the path (`:special_id`; the route schema has checked it is a number). */
const specialOf = (request: { params: { special_id: string } }) => Number(request.params.special_id);

/**
 * Each dispensary's specials: read by whoever may read the dispensary, managed with the `specials`
 * permission (operators, and managers and staff of the dispensary; src/domain/permissions.ts).
 */
export const specialRoutes = adminPlugin(['Sync API: specials'], (needs, { specials }) => {
  needs('read').read('/dispensaries/:id/specials', {
    operationId: 'listSpecials',
    summary: 'List a dispensary’s specials',
    schema: { params: IdParams, response: { 200: Type.Array(SpecialOut) } },
    run: async (request) => (await specials.list(pathId(request))).map(specialRecord),
  });

  needs('specials').write('POST', '/dispensaries/:id/specials', {
    operationId: 'createSpecial',
    summary: 'Create a special',
    description:
      'Each price entry of the items it targets gets the special’s price while it applies, when that is lower (the best special of an entry wins; specials do not stack). Items whose price changes now are changes of the live feed; so are they at each start and end of the special, with no write by anyone.',
    schema: { params: IdParams, body: CreateSpecialBody, response: { 201: SpecialOut } },
    run: async (request) =>
      specialRecord(await specials.create(pathId(request), request.body, actorOf(request))),
  });

  needs('read').read('/dispensaries/:id/specials/schedule', {
    operationId: 'getSpecialsSchedule',
    summary: 'When each special applies in the coming days',
    description:
      'Each special’s spans in the `days` days from now (7 by default), worked out in the store’s time zone as the prices are: daily windows, dates and changes of the clocks. The console previews a schedule with it.',
    schema: { params: IdParams, querystring: ScheduleQuerystring, response: { 200: ScheduleOut } },
    run: async (request) =>
      specialsScheduleRecord(await specials.schedule(pathId(request), Number(request.query.days ?? 7))),
  });

  needs('read').read('/dispensaries/:id/specials/:special_id', {
    operationId: 'getSpecial',
    summary: 'Read a special',
    schema: { params: SpecialParams, response: { 200: SpecialOut } },
    run: async (request) => specialRecord(await specials.get(pathId(request), specialOf(request))),
  });

  needs('specials').write('PATCH', '/dispensaries/:id/specials/:special_id', {
    operationId: 'changeSpecial',
    summary: 'Change some fields of a special',
    description: 'The special is checked whole after the change; a refused change changes nothing.',
    schema: { params: SpecialParams, body: PatchSpecialBody, response: { 200: SpecialOut } },
    run: async (request) =>
      specialRecord(
        await specials.change(pathId(request), specialOf(request), request.body, actorOf(request)),
      ),
  });

  needs('specials').write('DELETE', '/dispensaries/:id/specials/:special_id', {
    operationId: 'deleteSpecial',
    summary: 'Delete a special',
    schema: { params: SpecialParams, response: noContent('Deleted.') },
    run: (request) => specials.remove(pathId(request), specialOf(request), actorOf(request)),
  });
});
