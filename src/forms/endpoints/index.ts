import type { FastifyInstance } from 'fastify';
import type { FormContext, RequestForm } from '../form.js';
import { changesEndpoint } from './changes.js';
import type { PublicEndpoint } from './endpoint.js';
import { eventsEndpoint } from './events.js';
import { inventoryEndpoint } from './inventory.js';
import { menuEndpoint } from './menu.js';
import { menuItemEndpoint } from './menu-item.js';
import { specialsEndpoint } from './specials.js';
import { storeEndpoint } from './store.js';

/**
 * Every public endpoint, each served in every form (but those served only where a form names them). A
 * new endpoint is a new file and one line here.
 */
export const PUBLIC_ENDPOINTS: readonly PublicEndpoint[] = [
  menuEndpoint,
  menuItemEndpoint,
  storeEndpoint,
  inventoryEndpoint,
  specialsEndpoint,
  changesEndpoint,
  eventsEndpoint,
];

/**
 * Registers every public endpoint in every form. Each form's routes share a scope of their own, so
 * that what the form's transport prepares there (Form A's body parsers) reaches no other route.
 */
export async function registerPublicEndpoints(
  app: FastifyInstance,
  forms: readonly RequestForm[],
  context: FormContext,
): Promise<void> {
  const routes = PUBLIC_ENDPOINTS.map((endpoint) => ({
    endpoint,
    route: endpoint.build(context),
  }));
  for (const form of forms) {
    await app.register(
      async (scope) => {
        form.transport.prepare?.(scope);
        for (const { endpoint, route } of routes) {
          const { endpoints } = form.transport;
          const served = endpoints ? endpoints.includes(endpoint.name) : !endpoint.onlyWhereNamed;
          if (served) scope.route(route(form));
        }
      },
      form.transport.prefix === undefined ? {} : { prefix: form.transport.prefix },
    );
  }
}
