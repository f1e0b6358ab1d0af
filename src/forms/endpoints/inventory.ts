import { Type } from 'typebox';
import { noStore, sendSnapshot, setMenuCursor } from '../../http/pipeline/snapshot-reply.js';
import { cursorOf } from '../../services/menu-feed.js';
import { InventorySchema, inventoryEntries, parseSince, SinceSchema } from '../common/inventory.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/**
 * Real-time inventory, the same in every form: the whole of it from a snapshot, or (with `since`)
 * computed per request and never cached.
 */
export const inventoryEndpoint: PublicEndpoint = {
  name: 'inventory',
  build: (context) => {
    const { menus, snapshots } = context;
    const view = snapshots.listView('inventory', InventorySchema, (item) =>
      inventoryEntries([item], undefined),
    );
    return (form) => {
      const { transport } = form;
      return formRoute(form, context, {
        name: 'inventory',
        operationId: 'readInventory',
        summary: 'Real-time inventory',
        description: `One entry per price entry of every active item. With ${transport.spell('since')}, only entries changed after that time.`,
        parameters: { since: Type.Optional(SinceSchema) },
        response: InventorySchema,
        menuCursor: true,
        handle: (request, reply, granted) => {
          const since = parseSince(transport.parameters(request).since as string | undefined);
          if (since === undefined) {
            return granted((grant) => sendSnapshot(request, reply, grant, view, transport.validators));
          }
          return granted(async ({ dispensary }) => {
            noStore(reply);
            const items = await menus.items(dispensary.id);
            setMenuCursor(reply, cursorOf(items));
            return inventoryEntries(items, since);
          });
        },
      });
    };
  },
};
