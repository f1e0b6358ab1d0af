import type { FastifyPluginAsync } from 'fastify';
import type { FormContext } from '../form.js';
import { formBMenuSchema, toFormBItem } from './item.js';
import { FormBRequestHeaders, refuseRepeatedCredentialHeaders } from './request.js';

export const formBRoutes: FastifyPluginAsync<FormContext> = async (app, { access, menus, formBNames }) => {
  app.get(
    '/menu',
    {
      schema: {
        summary: 'List menu items (Form B)',
        description:
          'Credentials and the dispensary token travel in request headers. Only active items are listed.',
        tags: ['Form B'],
        headers: FormBRequestHeaders,
        response: { 200: formBMenuSchema(formBNames) },
      },
      onRequest: refuseRepeatedCredentialHeaders,
    },
    async (request) => {
      const headers = request.headers as FormBRequestHeaders;
      const { dispensary } = await access.grant({
        username: headers.username,
        password: headers.password,
        token: headers.store,
      });
      const items = await menus.items(dispensary.id);
      return items.filter((item) => item.active).map((item) => toFormBItem(item, formBNames));
    },
  );
};
