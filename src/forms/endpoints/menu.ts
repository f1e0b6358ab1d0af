import { sendSnapshot } from '../../http/pipeline/snapshot-reply.js';
import { menuOf } from '../form.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/** The menu, in each form's item shape (the form decides which items and which spellings). */
export const menuEndpoint: PublicEndpoint = {
  name: 'menu',
  build: (context) => (form) => {
    const menu = menuOf(form, context);
    const { transport } = form;
    return formRoute(form, context, {
      name: 'menu',
      operationId: 'readMenu',
      summary: 'List menu items',
      description: [transport.credentialsTravel, menu.note].filter(Boolean).join(' '),
      parameters: menu.parameters,
      response: menu.schema,
      menuCursor: true,
      errors: menu.errors,
      handle: (request, reply, granted) => {
        const view = menu.view(transport.parameters(request));
        return granted((grant) => sendSnapshot(request, reply, grant, view, transport.validators));
      },
    });
  },
};
