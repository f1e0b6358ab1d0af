import { Type } from 'typebox';
import { InventorySchema, inventoryEntries, parseSince, SinceSchema } from '../common/inventory.js';
import { noStore, sendSnapshot } from '../common/snapshot-reply.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/**
 * Real-time inventory, the same in every form: the whole of it from a snapshot, or (with `since`)
 * computed per request and never cached.
 */
export const inventoryEndpoint: PublicEndpoint = {
  build: (context) => {
    const { menus, snapshots } = context;
    const view = snapshots.listView('inventory', InventorySchema, (item) =>
      inventoryEntries([item], undefined),
    );
    return (form) => {
      const { transport } = form;
      return formRoute(form, context, {
        name: 'inventory',
        summary: 'Real-time inventory',
        description: `One entry per price entry of every active item. With ${transport.spell('since')}, only entries changed after that time.`,
        parameters: { since: Type.Optional(SinceSchema) },
        response: InventorySchema,
        handle: async (request, reply, grant) => {
          const since = parseSince(transport.parameters(request).since as string | undefined);
          const granted = grant();
          if (since === undefined) return sendSnapshot(request, reply, granted, view, transport.validators);
          const { dispensary } = await granted;
          noStore(reply);
          return inventoryEntries(await menus.items(dispensary.id), since);
        },
      });
    };
  },
};
