import { carryCursor } from '../../services/menu-feed.js';
import type { FormContext, FormMenu } from '../form.js';
import { formBMenuSchema, toFormBItem } from './item.js';

/**
 * Form B's menu: the active items (it has no active flag on the wire) in the configured spellings,
 * kept as a snapshot serialized with the route's response schema.
 */
export function formBMenu({ snapshots, formBNames: names }: FormContext): FormMenu {
  const schema = formBMenuSchema(names);
  const view = snapshots.view(`b:menu:${names}`, schema, async (id) => {
    const items = await snapshots.items(id);
    return carryCursor(
      items,
      items.filter((item) => item.active).map((item) => toFormBItem(item, names)),
    );
  });
  return { parameters: {}, note: 'Only active items are listed.', schema, view: () => view };
}
