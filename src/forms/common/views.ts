import { toStoreInfoRecord } from '../../domain/store-info.js';
import type { MenuReader } from '../../services/menu-reader.js';
import type { MenuSnapshots, SnapshotView } from '../../services/menu-snapshots.js';
import { InventorySchema, inventoryEntries } from './inventory.js';
import { StoreInfoSchema } from './store-info.js';

/** The snapshots every form answers alike: store information and the full inventory (no `since`). */
export function commonViews(
  snapshots: MenuSnapshots,
  menus: MenuReader,
): { store: SnapshotView; inventory: SnapshotView } {
  return {
    store: snapshots.view('store', StoreInfoSchema, async (id) =>
      toStoreInfoRecord(await menus.storeInfo(id)),
    ),
    inventory: snapshots.view('inventory', InventorySchema, async (id) =>
      inventoryEntries(await snapshots.items(id), undefined),
    ),
  };
}
