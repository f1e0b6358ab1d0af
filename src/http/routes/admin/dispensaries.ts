import { Type } from 'typebox';
import { PUBLISHING_FIELDS, publishingRecord } from '../../../domain/publishing.js';
import { toStoreInfoRecord } from '../../../domain/store-info.js';
import { dispensarySummaryRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf, pathId, reachOf } from './auth.js';
import {
  CreateDispensaryBody,
  CreatedDispensaryOut,
  DispensaryOut,
  DispensarySummaryOut,
  RotateTokenBody,
  StoreInfoBody,
  TokenOut,
} from './dispensaries.schemas.js';
import { adminPlugin } from './route.js';
import { IdParams } from './shared.schemas.js';

export const dispensaryRoutes = adminPlugin(['Sync API: dispensaries'], (needs, { dispensaries }) => {
  const describe = async (id: number) => {
    const dispensary = await dispensaries.get(id);
    return {
      id: dispensary.id,
      name: dispensary.name,
      created_at: dispensary.createdAt,
      updated_at: dispensary.updatedAt,
      ...publishingRecord(await dispensaries.publishing(id)),
      store: toStoreInfoRecord(await dispensaries.storeInfo(id)),
    };
  };

  needs('operator').write('POST', '/dispensaries', {
    operationId: 'createDispensary',
    summary: 'Create a dispensary',
    description:
      'Answers the dispensary token once. A dispensary name need not be unique: two dispensaries may share one, and the id tells them apart.',
    secretField: 'token',
    schema: { body: CreateDispensaryBody, response: { 201: CreatedDispensaryOut } },
    run: async (request) => {
      const { name, ...store } = request.body;
      const created = await dispensaries.createWithStore(name, store, actorOf(request));
      return { id: created.id, name: created.name, token: created.token, store: created.store };
    },
  });

  needs('read').read('/dispensaries', {
    operationId: 'listDispensaries',
    summary: 'List dispensaries (a scoped key or an account sees its own)',
    schema: { response: { 200: Type.Array(DispensarySummaryOut) } },
    run: async (request) => {
      const limit = reachOf(request);
      const all = await dispensaries.list();
      return all
        .filter((dispensary) => limit === undefined || limit.includes(dispensary.id))
        .map(dispensarySummaryRecord);
    },
  });

  needs('read').read('/dispensaries/:id', {
    operationId: 'getDispensary',
    summary: 'Read a dispensary and its store information',
    schema: { params: IdParams, response: { 200: DispensaryOut } },
    run: (request) => describe(pathId(request)),
  });

  needs('store').write('PATCH', '/dispensaries/:id', {
    operationId: 'updateDispensary',
    summary: 'Update store information; publish or unpublish',
    schema: { params: IdParams, body: StoreInfoBody, response: { 200: DispensaryOut } },
    run: async (request) => {
      const id = pathId(request);
      const { body } = request;
      if (Object.keys(body).some((field) => field in PUBLISHING_FIELDS)) {
        await dispensaries.update(id, body, actorOf(request));
      } else {
        await dispensaries.updateStoreInfo(id, body, actorOf(request));
      }
      return describe(id);
    },
  });

  needs('integrators').write('POST', '/dispensaries/:id/rotate-token', {
    operationId: 'rotateDispensaryToken',
    summary: 'Replace the dispensary token',
    description:
      'The old token keeps working for grace_seconds (JSON body, optional; default 86400 = 24 h; 0 ends it at once).',
    secretField: 'token',
    schema: { params: IdParams, body: RotateTokenBody, response: { 200: TokenOut } },
    run: async (request) =>
      dispensaries.rotateToken(pathId(request), actorOf(request), request.body?.grace_seconds),
  });

  needs('operator').write('DELETE', '/dispensaries/:id', {
    operationId: 'deleteDispensary',
    summary: 'Delete a dispensary and its menu',
    schema: { params: IdParams, response: noContent('Deleted, with its menu.') },
    run: (request) => dispensaries.remove(pathId(request), actorOf(request)),
  });
});
