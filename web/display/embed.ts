import css from './embed.css';
import { followMenu, type LiveState } from './live.js';
import { MenuView } from './menu-view.js';

/**
 * The embeddable menu: `<div data-menu="SLUG"></div><script src="https://HOST/embed.js" async></script>`
 * renders the published menu of SLUG into that element's Shadow DOM (the host page's styles and ours
 * never meet; no iframe), with a search box and live updates from HOST's public event stream.
 */
const script = document.currentScript as HTMLScriptElement | null;
const origin = new URL(script?.src ?? location.href).origin;

function sheet(): { adopt(root: ShadowRoot): void } {
  let shared: CSSStyleSheet | undefined;
  try {
    shared = new CSSStyleSheet();
    shared.replaceSync(css);
  } catch {
    shared = undefined;
  }
  return {
    adopt(root) {
      if (shared) root.adoptedStyleSheets = [shared];
      else root.append(Object.assign(document.createElement('style'), { textContent: css }));
    },
  };
}

const styles = sheet();
const mounted = new WeakSet<Element>();
let counter = 0;

function mount(host: HTMLElement): void {
  if (mounted.has(host)) return;
  const slug = host.dataset.menu ?? '';
  if (!/^[a-z0-9-]{3,64}$/.test(slug)) return;
  mounted.add(host);
  const root = host.attachShadow({ mode: 'open' });
  styles.adopt(root);
  const id = `menu-search-${++counter}`;
  const wrapper = document.createElement('div');
  wrapper.className = 'menu';
  const bar = document.createElement('div');
  bar.className = 'bar';
  const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: 'Search the menu' });
  const input = Object.assign(document.createElement('input'), { id, type: 'search', placeholder: 'Name or brand' });
  const status = Object.assign(document.createElement('span'), { className: 'status', textContent: 'Loading…' });
  status.setAttribute('role', 'status');
  // A store that sells both menus gets a switch; `data-menu-type="med"` picks the medical one first.
  const view = new MenuView('groups', { links: true, menu: host.dataset.menuType ?? null });
  const choice = Object.assign(document.createElement('select'), { hidden: true });
  choice.setAttribute('aria-label', 'Prices');
  choice.append(new Option('Adult-use prices', 'rec'), new Option('Medical prices', 'med'));
  choice.addEventListener('change', () => view.showMenu(choice.value));
  view.onStore = (store) => {
    choice.hidden = store.menu_types.length < 2;
    choice.value = view.menuType;
  };
  bar.append(label, input, choice, status);
  wrapper.append(bar, view.root);
  root.append(wrapper);
  input.addEventListener('input', () => view.filter(input.value));
  const states: Record<LiveState, string> = {
    connecting: 'Loading…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    gone: 'This menu is not published',
  };
  followMenu(`${origin}/m/${slug}/events`, {
    snapshot(menu) {
      view.snapshot(menu);
      view.filter(input.value);
    },
    update(update) {
      view.update(update);
    },
    state(state) {
      status.textContent = states[state];
      host.dataset.menuState = state;
    },
  });
}

function mountAll(): void {
  for (const host of document.querySelectorAll<HTMLElement>('[data-menu]')) mount(host);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
else mountAll();
