/**
 * The menu page's enhancement (/display/menu.js): the filter form applies as it changes, without a
 * reload. It asks the server for the page of the form's address (the very page a shared link or the
 * form without JavaScript gets, so there is one rendering of it: src/http/routes/display/page.ts), puts
 * its list in place and refreshes the counts beside the filters in place (the focus stays where it
 * is), and the address bar follows with replaceState, so the page can be shared as it is.
 */
function enhance(): void {
  const form = document.querySelector<HTMLFormElement>('form.filter');
  const main = document.getElementById('menu');
  if (!form || !main) return;
  const links = [...document.querySelectorAll<HTMLAnchorElement>('.menu-types a')];
  const menuField = form.querySelector<HTMLInputElement>('input[name="menu_type"]');
  let pending: AbortController | undefined;
  let typing: ReturnType<typeof setTimeout> | undefined;

  /** The form's address: its filled fields, the first menu (the default) left out. */
  const address = (): string => {
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form))
      if (typeof value === 'string' && value.trim() !== '') query.append(name, value.trim());
    if (query.get('menu_type') === links[0]?.dataset.menu) query.delete('menu_type');
    const text = query.toString();
    return text ? `?${text}` : location.pathname;
  };

  /** Takes from `page` (the server's answer) the list, the count, the counts and the switch's links. */
  const swap = (page: Document) => {
    const results = page.getElementById('results');
    const mine = document.getElementById('results');
    if (!results || !mine) return;
    mine.replaceWith(document.adoptNode(results));
    main.className = page.getElementById('menu')?.className ?? main.className;
    const count = main.querySelector('.count');
    if (count) count.textContent = page.querySelector('.count')?.textContent ?? '';
    // Each box's count (the label's .n), and the span shown beside each range (#thc-shown...).
    for (const box of form.querySelectorAll<HTMLInputElement>('.chip input')) {
      const fresh = page.querySelector(`input[name="${box.name}"][value="${CSS.escape(box.value)}"]`);
      const figure = box.parentElement?.querySelector('.n');
      if (figure) figure.textContent = fresh?.parentElement?.querySelector('.n')?.textContent ?? '0';
    }
    for (const figure of form.querySelectorAll('.range .n'))
      figure.textContent = page.getElementById(figure.id)?.textContent ?? '';
    const reset = form.querySelector<HTMLElement>('.reset');
    if (reset) reset.hidden = page.querySelector('.reset')?.hasAttribute('hidden') ?? false;
    for (const link of links) {
      const fresh = page.querySelector(`.menu-types a[data-menu="${link.dataset.menu}"]`);
      link.href = fresh?.getAttribute('href') ?? link.href;
      current(link, fresh?.hasAttribute('aria-current') ?? false);
    }
  };

  const apply = async () => {
    clearTimeout(typing);
    const target = address();
    history.replaceState(null, '', target);
    pending?.abort();
    const request = new AbortController();
    pending = request;
    try {
      const response = await fetch(target, { signal: request.signal, headers: { accept: 'text/html' } });
      const text = await response.text();
      if (request === pending) swap(new DOMParser().parseFromString(text, 'text/html'));
    } catch {
      // Aborted by a newer change; or the network failed: then the page the form asks for, loaded.
      if (!request.signal.aborted) location.assign(target);
    }
  };

  form.addEventListener('change', apply);
  form.addEventListener('input', (event) => {
    // Words are fetched once typing pauses; boxes and selects say so with `change`.
    if ((event.target as HTMLElement).id !== 'q') return;
    clearTimeout(typing);
    typing = setTimeout(apply, 250);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void apply();
  });
  // The adult-use / medical switch: the form's hidden field, then the same fetch.
  for (const link of links) {
    link.addEventListener('click', (event) => {
      if (!menuField) return;
      event.preventDefault();
      menuField.value = link.dataset.menu ?? '';
      // The page holds both menus' prices (CSS shows the chosen): shown at once, then the counts.
      main.className = `menu-${menuField.value}`;
      for (const other of links) current(other, other === link);
      void apply();
    });
  }
}

function current(link: HTMLAnchorElement, chosen: boolean): void {
  if (chosen) link.setAttribute('aria-current', 'page');
  else link.removeAttribute('aria-current');
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', enhance);
else enhance();
