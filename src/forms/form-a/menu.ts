import { Type } from 'typebox';
import { carryCursor } from '../../services/menu-feed.js';
import type { FormContext, FormMenu } from '../form.js';
import { FormAMenu, toFormAItem } from './item.js';

/**
 * Form A's menu: active items by default, every item (each with its flag) with `active: false`; each
 * kept as a snapshot serialized with the route's response schema.
 */
export function formAMenu({ snapshots }: FormContext): FormMenu {
  // Active items in a list view (patched item by item after a change); every item in a whole view,
  // built again after each change: the live feed does not record changes to inactive items.
  const menu = (onlyActive: boolean) =>
    onlyActive
      ? snapshots.listView('a:menu:active', FormAMenu, (item) => (item.active ? [toFormAItem(item)] : []))
      : snapshots.view('a:menu:all', FormAMenu, async (id) => {
          const items = await snapshots.items(id);
          return carryCursor(items, items.map(toFormAItem));
        });
  const active = menu(true);
  const all = menu(false);
  return {
    parameters: {
      active: Type.Optional(
        Type.Boolean({
          description:
            'Default true: only active items. false: every item, active and inactive, each with its flag.',
        }),
      ),
    },
    schema: FormAMenu,
    view: (parameters) => (parameters.active === false ? all : active),
  };
}
