import { Type } from 'typebox';
import { EXTERNAL_REF_PATTERN, parseItemRef } from '../../domain/item-ref.js';
import { sendSnapshot } from '../../http/pipeline/snapshot-reply.js';
import { ServiceError } from '../../services/errors.js';
import { menuOf } from '../form.js';
import { itemSchemaOf } from './changes.js';
import { formRoute, type PublicEndpoint } from './endpoint.js';

/** The item of the path: its id, or `ext:` and its external_id (the point of sale's id). */
const ItemParams = Type.Object({
  item_id: Type.Union(
    [
      Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Item id' }),
      Type.String({ pattern: EXTERNAL_REF_PATTERN, description: "ext: and the item's external_id" }),
    ],
    { description: 'The item: its id, or ext: and its external_id (ext:pos-10442).' },
  ),
});

/** One item of the menu, in the form's item shape: served only by a form that names it (Form v1). */
export const menuItemEndpoint: PublicEndpoint = {
  name: 'menu/{item_id}',
  onlyWhereNamed: true,
  build: (context) => (form) => {
    const menu = menuOf(form, context);
    const { transport } = form;
    const item = menu.item;
    if (!item) throw new Error(`form ${form.id} serves menu/{item_id} but its menu has no item view`);
    return formRoute(form, context, {
      name: 'menu/:item_id',
      operationId: 'readMenuItem',
      summary: 'Read one menu item',
      description: `${transport.credentialsTravel} One item, active or not, exactly as the menu lists it; 404 not_found when the menu has no such item.`,
      parameters: {},
      params: ItemParams,
      response: itemSchemaOf(form, menu),
      menuCursor: true,
      errors: [404],
      handle: (request, reply, granted) => {
        const ref = parseItemRef((request.params as { item_id: string }).item_id);
        // The schema's patterns admit ids and ext: with something after it; blanks alone name nothing.
        if (!ref) {
          throw new ServiceError(
            'invalid_request',
            'The path names no item: send an item id, or ext: and an external_id (ext:pos-10442).',
            [{ field: 'item_id', message: 'names no item' }],
          );
        }
        const view = item(ref);
        return granted((grant) => sendSnapshot(request, reply, grant, view, transport.validators));
      },
    });
  },
};
