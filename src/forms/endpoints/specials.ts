import { sendSnapshot } from '../../http/pipeline/snapshot-reply.js';
import { PublicSpecialsSchema, publicSpecialRecord } from '../common/specials.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/**
 * The dispensary's specials, each with its targets and schedule: served only by a form that names it
 * (Form v1; Forms A and B follow specifications that have no specials).
 */
export const specialsEndpoint: PublicEndpoint = {
  name: 'specials',
  onlyWhereNamed: true,
  build: (context) => {
    const { menus, snapshots } = context;
    const view = snapshots.view('specials', PublicSpecialsSchema, async (id) =>
      (await menus.specials(id)).specials.map(publicSpecialRecord),
    );
    return (form) =>
      formRoute(form, context, {
        name: 'specials',
        operationId: 'readSpecials',
        summary: 'The dispensary’s specials',
        description: `${form.transport.credentialsTravel} Every special of the dispensary, by id, with what it applies to and when (in the store’s time zone), whether it applies now or not. Which special lowers a price now is on each price entry of the menu (special, med_special).`,
        parameters: {},
        response: PublicSpecialsSchema,
        handle: (request, reply, granted) =>
          granted((grant) => sendSnapshot(request, reply, grant, view, form.transport.validators)),
      });
  },
};
