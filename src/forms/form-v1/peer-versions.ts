import { ServiceError } from '../../services/errors.js';
import type { SnapshotView } from '../../services/menu-snapshots.js';
import type { PeerPages } from '../form.js';

/**
 * A paging's page read here, or, when the menu version its cursor reads is not kept here (410
 * cursor_expired), from the worker of `serve --workers N` that keeps it: each worker keeps the versions
 * it gave cursors out for, and the next page may reach another. The page is that worker's answer, the
 * same bytes it would send, so that no item is listed twice or skipped whichever worker answers. When
 * none keeps it either, the 410 stands.
 */
export function readOrAskPeers(
  read: SnapshotView['read'],
  peers: PeerPages,
  version: number,
  parameters: Readonly<Record<string, unknown>>,
): SnapshotView['read'] {
  return async (dispensaryId, acceptEncoding) => {
    try {
      return await read(dispensaryId, acceptEncoding);
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'cursor_expired')) throw error;
      const found = await peers.ask({
        dispensaryId,
        version,
        parameters,
        ...(acceptEncoding === undefined ? {} : { acceptEncoding }),
      });
      if (!found) throw error;
      return found;
    }
  };
}
