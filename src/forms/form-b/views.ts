import type { MenuSnapshots, SnapshotView } from '../../services/menu-snapshots.js';
import type { FormBNames } from '../form.js';
import { formBMenuSchema, toFormBItem } from './item.js';

/** Form B's menu snapshot (active items, in the configured spellings), serialized with the route's schema. */
export function formBMenuView(snapshots: MenuSnapshots, names: FormBNames): SnapshotView {
  return snapshots.view(`b:menu:${names}`, formBMenuSchema(names), async (id) =>
    (await snapshots.items(id)).filter((item) => item.active).map((item) => toFormBItem(item, names)),
  );
}
