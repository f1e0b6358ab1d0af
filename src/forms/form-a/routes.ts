import type { FastifyPluginAsync } from 'fastify';
import { ServiceError } from '../../services/errors.js';
import type { FormContext } from '../form.js';
import { FormAMenu, toFormAItem } from './item.js';
import { FormARequestBody, isAcceptedContentType, parseFormABody } from './request.js';

export const formARoutes: FastifyPluginAsync<FormContext> = async (app, { access, menus }) => {
  // Form A owns its body parsing: this scope's parsers replace the defaults and reach no other route.
  app.removeAllContentTypeParsers();
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
    try {
      done(null, parseFormABody(contentType, body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.post(
    '/menu',
    {
      schema: {
        summary: 'List menu items (Form A)',
        description: 'Credentials and the dispensary token travel in the JSON body.',
        tags: ['Form A'],
        body: FormARequestBody,
        response: { 200: FormAMenu },
      },
    },
    async (request) => {
      const body = request.body as FormARequestBody;
      const { dispensary } = await access.grant({
        username: body.username,
        password: body.password,
        token: body.collective_token,
      });
      const items = await menus.items(dispensary.id);
      const includeInactive = body.active === false;
      return items.filter((item) => includeInactive || item.active).map(toFormAItem);
    },
  );
};
