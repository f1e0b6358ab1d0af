import { Type } from 'typebox';
import type { FormContext, FormMenu } from '../form.js';
import { FormAMenu, toFormAItem } from './item.js';

/**
 * Form A's menu: active items by default, every item (each with its flag) with `active: false`; each
 * kept as a snapshot serialized with the route's response schema.
 */
export function formAMenu({ snapshots }: FormContext): FormMenu {
  const menu = (onlyActive: boolean) =>
    snapshots.listView(`a:menu:${onlyActive ? 'active' : 'all'}`, FormAMenu, (item) =>
      onlyActive && !item.active ? [] : [toFormAItem(item)],
    );
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
