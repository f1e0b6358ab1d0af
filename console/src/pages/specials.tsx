import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { SpecialSummary, SpecialsSchedule } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Alert, Confirm, useLoad, useSubmit } from '../components.js';
import { CheckGroup, ColumnTable, DangerButton, useDeletion } from '../lists.js';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const KINDS = [
  ['percent_off', 'Percent off'],
  ['amount_off', 'Amount off'],
  ['fixed_price', 'Fixed price'],
] as const;
const MENUS = [
  ['both', 'Both menus'],
  ['rec', 'Adult-use (rec)'],
  ['med', 'Medical (med)'],
] as const;
const TARGETS = ['brands', 'product_types', 'tags', 'item_ids', 'external_ids'] as const;
const TARGET_LABELS: Record<(typeof TARGETS)[number], string> = {
  brands: 'Brands',
  product_types: 'Product types',
  tags: 'Tags',
  item_ids: 'Item ids',
  external_ids: 'External ids',
};

/** Preact types each kind of input apart, so a time field's type comes in its own attribute set. */
const TIME_INPUT: JSX.IntrinsicElements['input'] = { type: 'time' };

/** The form's fields as typed: lists as comma text, empty text for "no limit". */
interface Draft {
  name: string;
  description: string;
  kind: string;
  value: string;
  menu_type: string;
  targets: Record<(typeof TARGETS)[number], string>;
  starts_at: string;
  ends_at: string;
  days: string[];
  daily_start: string;
  daily_end: string;
}

const EMPTY: Draft = {
  name: '',
  description: '',
  kind: 'percent_off',
  value: '',
  menu_type: 'both',
  targets: { brands: '', product_types: '', tags: '', item_ids: '', external_ids: '' },
  starts_at: '',
  ends_at: '',
  days: [],
  daily_start: '',
  daily_end: '',
};

function draftOf(special: SpecialSummary): Draft {
  const targets = special.applies_to as Record<(typeof TARGETS)[number], (string | number)[]>;
  return {
    name: special.name,
    description: special.description,
    kind: special.kind,
    value: String(special.value),
    menu_type: special.menu_type,
    targets: Object.fromEntries(TARGETS.map((list) => [list, targets[list].join(', ')])) as Draft['targets'],
    starts_at: special.starts_at ?? '',
    ends_at: special.ends_at ?? '',
    days: special.days_of_week ?? [],
    daily_start: special.daily_start ?? '',
    daily_end: special.daily_end ?? '',
  };
}

const listOf = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** The whole special as the sync API takes it; the server checks it and names each problem. */
function bodyOf(draft: Draft): Record<string, unknown> {
  const applies = Object.fromEntries(
    TARGETS.map((list) => {
      const entries = listOf(draft.targets[list]);
      return [
        list,
        list === 'item_ids' ? entries.map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : entries,
      ];
    }),
  );
  const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
  return {
    name: draft.name,
    description: draft.description,
    kind: draft.kind,
    value: draft.value.trim() === '' || Number.isNaN(Number(draft.value)) ? draft.value : Number(draft.value),
    menu_type: draft.menu_type,
    applies_to: applies,
    starts_at: orNull(draft.starts_at),
    ends_at: orNull(draft.ends_at),
    days_of_week: draft.days.length > 0 ? draft.days : null,
    daily_start: orNull(draft.daily_start),
    daily_end: orNull(draft.daily_end),
  };
}

/** A dispensary's specials: the list, a form to add or change one, and when each applies this week. */
export function SpecialsTab(props: { id: number; timezone: string | null }) {
  const base = `/dispensaries/${props.id}/specials`;
  const list = useLoad(() => api<SpecialSummary[]>('GET', base), [props.id]);
  const schedule = useLoad(() => api<SpecialsSchedule>('GET', `${base}/schedule?days=7`), [props.id]);
  const [editing, setEditing] = useState<SpecialSummary>();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [status, setStatus] = useState('');
  const reload = () => {
    list.reload();
    schedule.reload();
  };
  const form = useSubmit(async () => {
    const saved = editing
      ? await api<SpecialSummary>('PATCH', `${base}/${editing.id}`, bodyOf(draft))
      : await api<SpecialSummary>('POST', base, bodyOf(draft));
    setStatus(`${editing ? 'Changed' : 'Added'} special ${saved.id} (${saved.name}).`);
    setEditing(undefined);
    setDraft(EMPTY);
    reload();
  });
  const removing = useDeletion((special: SpecialSummary) => `${base}/${special.id}`, reload);
  const field = (
    name: 'name' | 'description' | 'value' | 'starts_at' | 'ends_at' | 'daily_start' | 'daily_end',
    label: string,
    hint = '',
  ) => (
    <label>
      {label}
      {hint && <span class="hint"> {hint}</span>}
      <input
        {...(name.startsWith('daily_') ? TIME_INPUT : {})}
        value={draft[name]}
        required={name === 'name' || name === 'value'}
        onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
      />
    </label>
  );
  const choice = (
    name: 'kind' | 'menu_type',
    label: string,
    options: readonly (readonly [string, string])[],
  ) => (
    <label>
      {label}
      <select
        value={draft[name]}
        onChange={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-label="Specials">
      <p role="status">{status}</p>
      <h2>Specials</h2>
      <ColumnTable
        list={list}
        columns={[
          ['Id', (special) => special.id],
          ['Name', (special) => special.name],
          ['Deal', dealOf],
          ['Menu', (special) => special.menu_type],
          ['Applies to', targetsOf],
        ]}
        keyOf={(special) => special.id}
        actions={(special) => (
          <td class="row">
            <button
              type="button"
              aria-label={`Change special ${special.id}`}
              onClick={() => {
                setEditing(special);
                setDraft(draftOf(special));
              }}
            >
              Change
            </button>
            <DangerButton name={`Remove special ${special.id}`} onClick={() => removing.ask(special)}>
              Remove
            </DangerButton>
          </td>
        )}
      />
      <Preview schedule={schedule} />
      <h2>{editing ? `Change special ${editing.id}` : 'Add a special'}</h2>
      <form onSubmit={form.onSubmit}>
        <div class="row">
          {field('name', 'Name')}
          {choice('kind', 'Kind', KINDS)}
          {field('value', 'Value', '(percent, or an amount)')}
          {choice('menu_type', 'Menu', MENUS)}
        </div>
        {field('description', 'Description')}
        <fieldset>
          <legend>Applies to (comma lists; an item matching any entry)</legend>
          <div class="row">
            {TARGETS.map((target) => (
              <label key={target}>
                {TARGET_LABELS[target]}
                <input
                  value={draft.targets[target]}
                  onInput={(event) =>
                    setDraft({ ...draft, targets: { ...draft.targets, [target]: event.currentTarget.value } })
                  }
                />
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>When, in the store’s time zone ({props.timezone ?? 'UTC'}); empty: no limit</legend>
          <div class="row">
            {field('starts_at', 'Starts at', '(such as 2026-12-01T16:00:00-05:00)')}
            {field('ends_at', 'Ends at')}
            {field('daily_start', 'Daily from')}
            {field('daily_end', 'Daily until')}
          </div>
          <CheckGroup
            legend="Days (none checked: every day)"
            options={WEEKDAYS.map((day) => ({
              value: day,
              label: day.charAt(0).toUpperCase() + day.slice(1),
            }))}
            chosen={draft.days}
            onChange={(days) => setDraft({ ...draft, days })}
          />
        </fieldset>
        <div class="row">
          <button type="submit" disabled={form.busy}>
            {editing ? 'Save special' : 'Add special'}
          </button>
          {editing && (
            <button
              type="button"
              onClick={() => {
                setEditing(undefined);
                setDraft(EMPTY);
              }}
            >
              Cancel
            </button>
          )}
        </div>
        <Alert message={form.error} />
      </form>
      {removing.target && (
        <Confirm
          title={`Remove special ${removing.target.id}?`}
          action="Remove special"
          {...removing.handlers}
        >
          <p>Its items go back to their regular prices at once.</p>
        </Confirm>
      )}
    </section>
  );
}

function dealOf(special: SpecialSummary): string {
  if (special.kind === 'percent_off') return `${special.value}% off`;
  return special.kind === 'amount_off' ? `${special.value} off` : `for ${special.value}`;
}

function targetsOf(special: SpecialSummary): string {
  const targets = special.applies_to as Record<(typeof TARGETS)[number], (string | number)[]>;
  return TARGETS.filter((list) => targets[list].length > 0)
    .map((list) => `${TARGET_LABELS[list]}: ${targets[list].join(', ')}`)
    .join('; ');
}

/** When each special applies in the next seven days, one row per span, in the store's time zone. */
function Preview(props: { schedule: { data: SpecialsSchedule | undefined; error: string } }) {
  const data = props.schedule.data;
  const zone = data?.timezone ?? 'UTC';
  const day = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'long',
    month: 'short',
    day: 'numeric',
  });
  const time = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const spans = (data?.specials ?? [])
    .flatMap((special) => special.periods.map((period) => ({ special, period })))
    .sort((a, b) => a.period.starts_at.localeCompare(b.period.starts_at));
  const until = (end: string | null) =>
    end === null ? 'no end' : `${day.format(new Date(end))} ${time.format(new Date(end))}`;
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">The next seven days</h2>
      <p>Times in {zone}. Each row is a span during which a special lowers its items’ prices.</p>
      <Alert message={props.schedule.error} />
      {data && spans.length === 0 && <p>No special applies in the next seven days.</p>}
      {spans.length > 0 && (
        <table>
          <caption class="visually-hidden">When each special applies in the next seven days</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Special</th>
              <th scope="col">From</th>
              <th scope="col">Until</th>
            </tr>
          </thead>
          <tbody>
            {spans.map(({ special, period }) => (
              <tr key={`${special.id}-${period.starts_at}`}>
                <td>{day.format(new Date(period.starts_at))}</td>
                <td>{special.name}</td>
                <td>{time.format(new Date(period.starts_at))}</td>
                <td>{until(period.ends_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
