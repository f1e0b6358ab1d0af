/**
 * The adult-use / medical switch without a round trip: the page holds both menus' prices (CSS shows the
 * chosen one), so a click swaps the class, the form's hidden field and the address. Without this
 * script, each link is a page the server renders.
 */
function menuSwitch(): void {
  const main = document.getElementById('menu');
  const links = [...document.querySelectorAll<HTMLAnchorElement>('.menu-types a')];
  const field = document.querySelector<HTMLInputElement>('form.filter input[name="menu"]');
  if (!main || links.length === 0) return;
  for (const link of links) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      const chosen = link.dataset.menu ?? '';
      main.className = `menu-${chosen}`;
      for (const other of links) {
        if (other === link) other.setAttribute('aria-current', 'page');
        else other.removeAttribute('aria-current');
      }
      if (field) field.value = chosen;
      // The address keeps what the filter put there; the first menu is the default, left out.
      const query = new URLSearchParams(location.search);
      if (link === links[0]) query.delete('menu');
      else query.set('menu', chosen);
      const text = query.toString();
      history.replaceState(null, '', text ? `?${text}` : location.pathname);
    });
  }
}

/**
 * The menu page's enhancement (/display/menu.js): the filter form applies as one types or picks a
 * type, without a round trip, and the address bar follows (so the filtered page can be shared). The
 * page is complete without it: the form is a GET form the server answers.
 */
function enhance(): void {
  menuSwitch();
  const form = document.querySelector<HTMLFormElement>('form.filter');
  const type = document.querySelector<HTMLSelectElement>('#type');
  const search = document.querySelector<HTMLInputElement>('#q');
  const count = document.querySelector<HTMLElement>('.count');
  if (!form || !type || !search) return;
  const items = [...document.querySelectorAll<HTMLElement>('.item')];
  const groups = [...document.querySelectorAll<HTMLElement>('.group')];
  // A page the server filtered holds only the matching items: its form stays a plain GET form.
  const asked = new URLSearchParams(location.search);
  const menu = document.querySelector<HTMLInputElement>('form.filter input[name="menu"]');
  asked.delete('menu');
  if (asked.toString() !== '') return;
  // The Show button stays: hiding it once this script runs moved the list up under a phone's
  // thumb after the first paint (Lighthouse measured a layout shift of 0.04 at 412 px).

  const apply = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const item of items) {
      const match =
        (type.value === '' || item.dataset.type === type.value) &&
        words.every((word) => (item.dataset.search ?? '').includes(word));
      item.hidden = !match;
      if (match) shown++;
    }
    for (const group of groups) group.hidden = !group.querySelector('.item:not([hidden])');
    if (count) count.textContent = `${shown} of ${items.length} products`;
    const query = new URLSearchParams();
    if (type.value) query.set('type', type.value);
    if (search.value.trim()) query.set('q', search.value.trim());
    // The first menu is the default (the first switch link); another one stays in the address.
    const first = document.querySelector<HTMLAnchorElement>('.menu-types a')?.dataset.menu;
    if (menu && menu.value !== first) query.set('menu', menu.value);
    const text = query.toString();
    history.replaceState(null, '', text ? `?${text}` : location.pathname);
  };
  type.addEventListener('change', apply);
  search.addEventListener('input', apply);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', enhance);
else enhance();
