import { followMenu, type LiveState } from './live.js';
import { MenuView } from './menu-view.js';

/**
 * The in-store board (/board/{slug}): the menu in large type, grouped by type, paging through
 * columns when it does not fit the screen (`?interval=` seconds, default 10), `?theme=light|dark`,
 * `?menu=med` for a store's medical prices.
 * Live from /m/{slug}/events; DOM nodes are updated in place, so days of updates do not grow it.
 */
const DEFAULT_INTERVAL_S = 10;

function start(): void {
  const body = document.body;
  const slug = body.dataset.slug ?? '';
  const query = new URLSearchParams(location.search);
  const theme = query.get('theme') === 'light' ? 'light' : 'dark';
  body.classList.remove('theme-dark', 'theme-light');
  body.classList.add(`theme-${theme}`);
  const seconds = Number(query.get('interval'));
  const interval = Number.isFinite(seconds) && seconds >= 3 && seconds <= 600 ? seconds : DEFAULT_INTERVAL_S;

  const container = document.getElementById('board-groups')!;
  const pageLabel = document.getElementById('board-page')!;
  const live = document.getElementById('board-live')!;
  // `?menu=med` shows the medical prices of a store that sells both (the adult-use ones by default).
  const view = new MenuView('board-columns', { links: false, menu: query.get('menu') });
  let loaded = false;
  let updates = 0;
  let page = 0;

  const pages = () => {
    const step = view.root.clientWidth + columnGap();
    return step > 0 ? Math.max(1, Math.round(view.root.scrollWidth / step)) : 1;
  };
  const columnGap = () => Number.parseFloat(getComputedStyle(view.root).columnGap) || 0;
  const show = () => {
    const count = pages();
    if (page >= count) page = 0;
    view.root.scrollLeft = page * (view.root.clientWidth + columnGap());
    pageLabel.textContent = count > 1 ? `Page ${page + 1} of ${count}` : '';
  };
  setInterval(() => {
    page += 1;
    show();
  }, interval * 1000);
  addEventListener('resize', show);

  const states: Record<LiveState, string> = {
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    gone: 'This menu is no longer published',
  };
  followMenu(new URL(`../m/${encodeURIComponent(slug)}/events`, location.href).href, {
    snapshot(menu) {
      if (!loaded) {
        container.replaceChildren(view.root);
        loaded = true;
      }
      view.snapshot(menu);
      show();
    },
    update(update) {
      view.update(update);
      body.dataset.updates = String(++updates);
      show();
    },
    state(state) {
      live.textContent = states[state];
      live.dataset.state = state;
    },
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
