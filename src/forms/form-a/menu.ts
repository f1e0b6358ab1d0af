import { Type } from 'typebox';
import { carryCursor } from '../../services/menu-feed.js';
import type { FormContext, FormMenu } from '../form.js';
import { FormAMenu, toFormAItem } from './item.js';

/**
 * Form A's menu: active items by default, every item (each with its flag) with `active: false`; each
 * kept as a snapshot serialized with the route's response schema.
 */
export function formAMenu({ snapshots }: FormContext): FormMenu {
  const menu = (onlyActive: boolean) =>
    snapshots.view(`a:menu:${onlyActive ? 'active' : 'all'}`, FormAMenu, async (id) => {
      const items = await snapshots.items(id);
      return carryCursor(items, (onlyActive ? items.filter((item) => item.active) : items).map(toFormAItem));
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
