import type { MenuItem } from '../domain/item.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Serves a dispensary's menu from memory, read from the store once per change.
 * Concurrent readers of a menu that is being loaded share the one load.
 */
export class MenuReader {
  private readonly menus = new Map<number, Promise<MenuItem[]>>();

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
  ) {
    feed.subscribe((change) => {
      if (change.kind === 'menu' || change.kind === 'dispensary') {
        if (change.dispensaryId === null) this.menus.clear();
        else this.menus.delete(change.dispensaryId);
      }
    });
  }

  /** Every item of the dispensary, active or not, ordered by id. */
  items(dispensaryId: number): Promise<MenuItem[]> {
    let menu = this.menus.get(dispensaryId);
    if (!menu) {
      menu = this.store.readMenu(dispensaryId);
      this.menus.set(dispensaryId, menu);
      // A failed read is not remembered: the next request tries again.
      menu.catch(() => {
        if (this.menus.get(dispensaryId) === menu) this.menus.delete(dispensaryId);
      });
    }
    return menu;
  }
}
