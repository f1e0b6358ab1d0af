import type { MenuItem } from '../../domain/item.js';
import { type PricedItemRecord, pricedItemRecord } from '../../domain/priced-item.js';
import type { MenuReader, PricedMenu } from '../../services/menu-reader.js';

/**
 * How each priced menu spells a change's item: one function per menu, so that what is spelled with it
 * (an event stream's frames) can be kept with it and shared by every stream of the dispensary.
 */
const changeItems = new WeakMap<PricedMenu, (item: MenuItem) => PricedItemRecord>();

/**
 * Form v1's change item: the item's version the change recorded, priced as /v1/menu prices it now (its
 * effective prices under the dispensary's specials now), for /v1/changes, /v1/events and webhooks alike.
 */
export const v1ChangeItem =
  (menus: Pick<MenuReader, 'priced'>) =>
  async (dispensaryId: number): Promise<(item: MenuItem) => PricedItemRecord> => {
    const menu = await menus.priced(dispensaryId);
    let changeItem = changeItems.get(menu);
    if (!changeItem) {
      changeItem = (item) => pricedItemRecord(item, menu.pricing);
      changeItems.set(menu, changeItem);
    }
    return changeItem;
  };
