import { toStoreInfoRecord } from '../../domain/store-info.js';
import { sendSnapshot } from '../../http/pipeline/snapshot-reply.js';
import { carryCursor } from '../../services/menu-feed.js';
import { StoreInfoSchema } from '../common/store-info.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/** Store information: the same object, and the same snapshot, in every form. */
export const storeEndpoint: PublicEndpoint = {
  name: 'store',
  build: (context) => {
    const { menus, snapshots } = context;
    const view = snapshots.view('store', StoreInfoSchema, async (id) => {
      const info = await menus.storeInfo(id);
      return carryCursor(info, toStoreInfoRecord(info));
    });
    return (form) =>
      formRoute(form, context, {
        name: 'store',
        operationId: 'readStore',
        summary: 'Store information',
        description:
          'Address, hours, currency and other facts about the dispensary. Unknown values are null.',
        parameters: {},
        response: StoreInfoSchema,
        menuCursor: true,
        handle: (request, reply, granted) =>
          granted((grant) => sendSnapshot(request, reply, grant, view, form.transport.validators)),
      });
  },
};
