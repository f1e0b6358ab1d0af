import type { MenuSnapshots, SnapshotView } from '../../services/menu-snapshots.js';
import { FormAMenu, toFormAItem } from './item.js';

/** Form A's menu snapshots, serialized with the route's response schema: active items only, or all. */
export function formAViews(snapshots: MenuSnapshots): { active: SnapshotView; all: SnapshotView } {
  const menu = (onlyActive: boolean) =>
    snapshots.view(`a:menu:${onlyActive ? 'active' : 'all'}`, FormAMenu, async (id) => {
      const items = await snapshots.items(id);
      return (onlyActive ? items.filter((item) => item.active) : items).map(toFormAItem);
    });
  return { active: menu(true), all: menu(false) };
}
