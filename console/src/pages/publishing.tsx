import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { DispensaryDetail } from '../../../src/client/types.js';
import { SLUG_MAX, SLUG_MIN } from '../../../src/domain/publishing.js';
import { ApiError, api, messageOf } from '../api.js';
import { Alert, CopyField, ErrorText } from '../components.js';

type Publishing = Pick<
  DispensaryDetail,
  'published' | 'slug' | 'show_stock' | 'show_regular_price' | 'show_potency'
>;

/** What the public pages show: one switch each, saved at once, with what the answer means said after it. */
const DISPLAY_SWITCHES: readonly {
  field: 'show_stock' | 'show_regular_price' | 'show_potency';
  label: string;
  hint: string;
  on: string;
  off: string;
}[] = [
  {
    field: 'show_stock',
    label: 'Show stock levels',
    hint: 'Off, the pages say only in stock or sold out: stock levels are commercially sensitive.',
    on: 'The public pages show stock levels.',
    off: 'The public pages say only in stock or sold out.',
  },
  {
    field: 'show_regular_price',
    label: 'Show regular prices struck through under a special',
    hint: 'Turn off where the rules forbid it: Massachusetts treats sale and strike-through prices on online menus as prohibited advertising.',
    on: "A special's regular price is shown struck through.",
    off: 'Specials show only the price people pay.',
  },
  {
    field: 'show_potency',
    label: 'Show potency (THC, CBD)',
    hint: 'Turn off where the rules forbid it: New York restricts promoting potency.',
    on: 'The public pages show potency.',
    off: 'The public pages show no potency.',
  },
];

/** `show_regular_price` → `show-regular-price-hint`. */
const hintIdOf = (field: string) => `${field.replaceAll('_', '-')}-hint`;

/**
 * Publishing: the switch that serves (or stops serving) the dispensary's public pages, their slug and
 * whether they show stock levels, a special's regular price struck through and potency badges. Saved through PATCH /admin/v1/dispensaries/{id} like any API
 * client's, so the server alone checks the slug; its message is shown at the field. The switches save
 * at once, with the slug typed so far (one request: all of it applies, or none).
 */
export function PublishingTab(props: { detail: DispensaryDetail; onSaved: () => void }) {
  const [saved, setSaved] = useState<Publishing>(props.detail);
  const [draft, setDraft] = useState<Publishing>(props.detail);
  const [slug, setSlug] = useState(props.detail.slug ?? '');
  const [failure, setFailure] = useState<ApiError>();
  const [status, setStatus] = useState('');
  const slugError = failure?.at('slug');

  const save = async (wanted: Publishing, said: (answer: Publishing) => string) => {
    setDraft(wanted);
    setFailure(undefined);
    setStatus('');
    const typed = slug.trim();
    // An empty slug is left out: publishing then suggests one from the name (or keeps the one it had).
    const body = {
      published: wanted.published,
      show_stock: wanted.show_stock,
      show_regular_price: wanted.show_regular_price,
      show_potency: wanted.show_potency,
      ...(typed !== '' && typed !== saved.slug ? { slug: typed } : {}),
    };
    try {
      const answer = await api<DispensaryDetail>('PATCH', `/dispensaries/${props.detail.id}`, body);
      setSaved(answer);
      setDraft(answer);
      setSlug(answer.slug ?? '');
      setStatus(said(answer));
      props.onSaved();
    } catch (problem) {
      setDraft(saved);
      setFailure(problem instanceof ApiError ? problem : new ApiError(0, 'unknown', messageOf(problem)));
    }
  };

  const origin = location.origin;
  const publicSlug = saved.published ? saved.slug : null;
  return (
    <section aria-labelledby="publishing-title">
      <h2 id="publishing-title">Publishing</h2>
      <p class="hint" id="published-hint">
        A published dispensary has a public menu page, a menu board for in-store screens and a menu any web
        site can embed. They show active items, prices, availability and store information; never a token or
        an inactive item. Unpublished, every public address answers 404.
      </p>
      <form
        class="publishing"
        onSubmit={(event) => {
          event.preventDefault();
          save(draft, (answer) => `Slug saved: ${answer.slug ?? 'none yet'}.`);
        }}
      >
        <label class="check">
          <input
            type="checkbox"
            role="switch"
            aria-checked={draft.published}
            checked={draft.published}
            aria-describedby="published-hint"
            onChange={(event) => {
              const published = event.currentTarget.checked;
              save({ ...draft, published }, (answer) =>
                answer.published
                  ? `Published at /m/${answer.slug}.`
                  : 'Unpublished: its public pages answer 404.',
              );
            }}
          />
          Published
        </label>
        <div class="field">
          <label for="publishing-slug">Slug</label>
          <div class="row">
            <input
              id="publishing-slug"
              class="mono"
              value={slug}
              autoComplete="off"
              spellcheck={false}
              aria-invalid={slugError ? true : undefined}
              aria-describedby={
                slugError ? 'publishing-slug-error publishing-slug-hint' : 'publishing-slug-hint'
              }
              onInput={(event) => setSlug(event.currentTarget.value)}
            />
            <button type="submit">Save slug</button>
          </div>
          <ErrorText id="publishing-slug-error" message={slugError} />
          <span class="hint" id="publishing-slug-hint">
            The public pages' address: {SLUG_MIN} to {SLUG_MAX} characters of a-z, 0-9 and -. Left empty,
            publishing suggests one from the name.
          </span>
        </div>
        {DISPLAY_SWITCHES.map(({ field, label, hint, on, off }) => (
          <Fragment key={field}>
            <label class="check">
              <input
                type="checkbox"
                checked={draft[field]}
                aria-describedby={hintIdOf(field)}
                onChange={(event) => {
                  const shown = event.currentTarget.checked;
                  save({ ...draft, [field]: shown }, (answer) => (answer[field] ? on : off));
                }}
              />
              {label}
            </label>
            <span class="hint" id={hintIdOf(field)}>
              {hint}
            </span>
          </Fragment>
        ))}
        <Alert message={slugError ? undefined : failure?.message} />
        <p role="status">{status}</p>
      </form>
      {publicSlug && (
        <section aria-labelledby="addresses-title">
          <h3 id="addresses-title">Public addresses</h3>
          <CopyField label="Menu page address" value={`${origin}/m/${publicSlug}`} />
          <CopyField label="Menu board address" value={`${origin}/board/${publicSlug}`} />
          <CopyField
            label="Embed snippet"
            lines={2}
            value={`<div data-menu="${publicSlug}"></div>\n<script src="${origin}/embed.js" async></script>`}
          />
          <p>
            <a href={`/m/${publicSlug}`}>Open the menu page</a> ·{' '}
            <a href={`/board/${publicSlug}`}>Open the menu board</a>
          </p>
        </section>
      )}
    </section>
  );
}
