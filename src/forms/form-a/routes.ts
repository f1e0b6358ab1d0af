import type { FastifyPluginAsync } from 'fastify';
import { errorResponses } from '../../http/error-responses.js';
import { ServiceError } from '../../services/errors.js';
import { grantRequest } from '../common/grant.js';
import { InventorySchema, inventoryEntries, parseSince } from '../common/inventory.js';
import { noStore, sendSnapshot } from '../common/snapshot-reply.js';
import { StoreInfoSchema } from '../common/store-info.js';
import { commonViews } from '../common/views.js';
import type { FormContext } from '../form.js';
import { FormAMenu } from './item.js';
import {
  type FormAInventoryRequestBody,
  FormARequestBody,
  FormAStoreRequestBody,
  FormAInventoryRequestBody as InventoryBody,
  isAcceptedContentType,
  parseFormABody,
  parseFormAJson,
} from './request.js';
import { formAViews } from './views.js';

type Credentials = { username: string; password: string; collective_token: string };

const grantOf = (body: Credentials) => ({
  username: body.username,
  password: body.password,
  token: body.collective_token,
});

/** Hands a parser's result, or its error, to Fastify. */
function settle(done: (error: Error | null, body?: unknown) => void, parse: () => unknown): void {
  let body: unknown;
  try {
    body = parse();
  } catch (error) {
    done(error as Error, undefined);
    return;
  }
  done(null, body);
}

export const formARoutes: FastifyPluginAsync<FormContext> = async (app, { access, menus, snapshots }) => {
  const menu = formAViews(snapshots);
  const { store, inventory } = commonViews(snapshots, menus);

  // Form A owns its body parsing: this scope's parsers replace the defaults and reach no other route.
  // JSON, nearly every Form A request, has its own entry: Fastify finds an exact media type at once
  // (the catch-all only after trying the others), and its body needs no content type checks.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    settle(done, () => parseFormAJson(body as string)),
  );
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const contentType = request.headers['content-type'];
    if (!isAcceptedContentType(contentType)) {
      done(
        new ServiceError(
          'unsupported_media_type',
          `Content-Type ${contentType} is not accepted here. Send application/json (or a urlencoded form).`,
        ),
        undefined,
      );
      return;
    }
    settle(done, () => parseFormABody(contentType, body as string));
  });

  app.post(
    '/menu',
    {
      schema: {
        summary: 'List menu items (Form A)',
        description: 'Credentials and the dispensary token travel in the JSON body.',
        tags: ['Form A'],
        body: FormARequestBody,
        response: { 200: FormAMenu, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
      },
    },
    (request, reply) => {
      const body = request.body as FormARequestBody;
      const view = body.active === false ? menu.all : menu.active;
      return sendSnapshot(request, reply, grantRequest(access, request, grantOf(body)), view, false);
    },
  );

  app.post(
    '/store',
    {
      schema: {
        summary: 'Store information (Form A)',
        description:
          'Address, hours, currency and other facts about the dispensary. Unknown values are null.',
        tags: ['Form A'],
        body: FormAStoreRequestBody,
        response: { 200: StoreInfoSchema, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
      },
    },
    (request, reply) =>
      sendSnapshot(
        request,
        reply,
        grantRequest(access, request, grantOf(request.body as Credentials)),
        store,
        false,
      ),
  );

  app.post(
    '/inventory',
    {
      schema: {
        summary: 'Real-time inventory (Form A)',
        description:
          'One entry per price entry of every active item. With since, only entries changed after that time.',
        tags: ['Form A'],
        body: InventoryBody,
        response: { 200: InventorySchema, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body as FormAInventoryRequestBody;
      const since = parseSince(body.since);
      const granted = grantRequest(access, request, grantOf(body));
      if (since === undefined) return sendSnapshot(request, reply, granted, inventory, false);
      const { dispensary } = await granted;
      noStore(reply);
      return inventoryEntries(await menus.items(dispensary.id), since);
    },
  );
};
