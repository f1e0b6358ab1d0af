import type { PublishedMenu } from '../../../domain/published-menu.js';
import type { Representation } from '../../../services/menu-snapshots.js';
import { DEFAULT_COMPRESSION, encodedOf, identityOf } from '../../../services/snapshots/codings.js';
import { negotiateEncoding } from '../../../services/snapshots/encoding.js';

/** Filtered pages kept, across every dispensary: the most recently asked for. */
const KEPT_PAGES = 64;

interface Kept {
  /** The menu version the page was rendered from: another one (a change since) renders it again. */
  menu: PublishedMenu;
  answer: Representation | Promise<Representation>;
}

/**
 * The menu page under a query (a filter, a search, a sort, the other menu): rendered once per menu
 * version and query, in the coding asked for, with a strong ETag of its bytes, so that a shared link
 * asked for again (or revalidated: 304) costs no rendering. The unfiltered page is a snapshot instead.
 */
export class FilteredPages {
  private readonly kept = new Map<string, Kept>();

  /** The answer for `key` (the dispensary, the query and whatever else the page shows) of `menu`. */
  read(
    menu: PublishedMenu,
    key: string,
    acceptEncoding: string | string[] | undefined,
    render: () => string,
  ): Representation | Promise<Representation> {
    const encoding = negotiateEncoding(acceptEncoding);
    const keptKey = `${encoding}|${key}`;
    const found = this.kept.get(keptKey);
    if (found && found.menu === menu) {
      // Most recently used last: the first is the one to drop.
      this.kept.delete(keptKey);
      this.kept.set(keptKey, found);
      return found.answer;
    }
    const plain = identityOf(Buffer.from(render()), undefined);
    const answer = encoding === 'identity' ? plain : encodedOf(plain, encoding, DEFAULT_COMPRESSION);
    this.kept.delete(keptKey);
    if (this.kept.size >= KEPT_PAGES) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(keptKey, { menu, answer });
    if (answer instanceof Promise)
      answer.catch(() => {
        if (this.kept.get(keptKey)?.answer === answer) this.kept.delete(keptKey);
      });
    return answer;
  }
}
