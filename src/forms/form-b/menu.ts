import type { FormContext, FormMenu } from '../form.js';
import { formBMenuSchema, toFormBItem } from './item.js';

/**
 * Form B's menu: the active items (it has no active flag on the wire) in the configured spellings,
 * kept as a snapshot serialized with the route's response schema.
 */
export function formBMenu({ snapshots, formBNames: names }: FormContext): FormMenu {
  const schema = formBMenuSchema(names);
  const view = snapshots.listView(`b:menu:${names}`, schema, (item) =>
    item.active ? [toFormBItem(item, names)] : [],
  );
  return { parameters: {}, note: 'Only active items are listed.', schema, view: () => view };
}
