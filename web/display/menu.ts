/**
 * The menu page's enhancement (/display/menu.js): the filter form applies as one types or picks a
 * type, without a round trip, and the address bar follows (so the filtered page can be shared). The
 * page is complete without it: the form is a GET form the server answers.
 */
function enhance(): void {
  const form = document.querySelector<HTMLFormElement>('form.filter');
  const type = document.querySelector<HTMLSelectElement>('#type');
  const search = document.querySelector<HTMLInputElement>('#q');
  const count = document.querySelector<HTMLElement>('.count');
  if (!form || !type || !search) return;
  const items = [...document.querySelectorAll<HTMLElement>('.item')];
  const groups = [...document.querySelectorAll<HTMLElement>('.group')];
  // A page the server filtered holds only the matching items: its form stays a plain GET form.
  if (new URLSearchParams(location.search).toString() !== '') return;
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
