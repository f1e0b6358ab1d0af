import { useState } from 'preact/hooks';
import type {
  CreatedWebhook,
  DispensarySummary,
  WebhookDelivery,
  WebhookSummary,
} from '../../../src/client/types.js';
import { api, messageOf } from '../api.js';
import { Confirm, TextInput, useDispensaries, useLoad, when } from '../components.js';
import {
  CheckGroup,
  ColumnTable,
  DangerButton,
  DispensarySelect,
  timeColumn,
  useDeletion,
} from '../lists.js';
import { SecretForm, useSecretForm } from '../secret-form.js';

const EVENTS = ['item.upserted', 'item.removed', 'store.updated'] as const;

/** Where a webhook list lives, and what its caller picks when it adds one. */
export interface WebhookScope {
  /** The operators' `/webhooks`, or an integrator's own `/developer/webhooks`. */
  path: string;
  /** The dispensaries it may subscribe to, and how a webhook's dispensary is named. */
  dispensaries: {
    list: Pick<DispensarySummary, 'id' | 'name'>[] | undefined;
    labelOf: (id: number) => string;
  };
  /** Whether it names the credential subscribed (an integrator's is its own) and may retry deliveries. */
  operator: boolean;
}

type ItemForm = WebhookSummary['form'];
/** The request forms whose item shape a webhook's deliveries may carry (b: what they carried before). */
const ITEM_FORMS: readonly { value: ItemForm; label: string }[] = [
  { value: 'b', label: 'Form B' },
  { value: 'a', label: 'Form A' },
  { value: 'v1', label: 'Form v1 (every field, effective prices)' },
];

/** The choices of a picker of the item shape deliveries carry. */
const itemFormOptions = ITEM_FORMS.map((option) => (
  <option key={option.value} value={option.value}>
    {option.label}
  </option>
));

/** Webhooks (an integrator credential subscribed to a dispensary's changes) and their deliveries. */
export function WebhooksPage() {
  const dispensaries = useDispensaries();
  return (
    <>
      <h1>Webhooks</h1>
      <WebhookManager path="/webhooks" dispensaries={dispensaries} operator />
    </>
  );
}

/** The list, the form that adds one (its secret shown once), removal and deliveries: both pages' own. */
export function WebhookManager(scope: WebhookScope) {
  const { path, dispensaries, operator } = scope;
  const list = useLoad(() => api<WebhookSummary[]>('GET', path), [path]);
  const [form, setForm] = useState({ credential: '', dispensary: '', url: '' });
  const [events, setEvents] = useState<string[]>([]);
  const [itemForm, setItemForm] = useState<ItemForm>('b');
  const creating = useSecretForm(
    () =>
      api<CreatedWebhook>('POST', path, {
        ...(operator ? { credential: form.credential } : {}),
        dispensary_id: Number(form.dispensary || dispensaries.list?.[0]?.id),
        url: form.url,
        events: events.length > 0 ? events : null,
        form: itemForm,
      }),
    () => {
      setForm({ credential: '', dispensary: form.dispensary, url: '' });
      list.reload();
    },
  );
  /** A change of a listed webhook (its switch, its item shape); a refusal shows where the form's do. */
  const change = async (hook: WebhookSummary, patch: { enabled?: boolean; form?: string }) => {
    try {
      await api('PATCH', `${path}/${hook.id}`, patch);
      list.reload();
    } catch (failure) {
      creating.fail(failure);
    }
  };
  const removing = useDeletion((hook: WebhookSummary) => `${path}/${hook.id}`, list.reload);
  const [open, setOpen] = useState<number>();
  return (
    <>
      <h2>{operator ? 'Subscribe a credential' : 'Add a webhook'}</h2>
      <SecretForm
        state={creating}
        secret={(created) => ({ label: `Signing secret of webhook ${created.id}`, value: created.secret })}
        submit="Add webhook"
      >
        <div class="row">
          {operator && (
            <TextInput
              label="Credential (username)"
              value={form.credential}
              onInput={(credential) => setForm({ ...form, credential })}
            />
          )}
          <DispensarySelect
            value={form.dispensary || String(dispensaries.list?.[0]?.id ?? '')}
            onChange={(dispensary) => setForm({ ...form, dispensary })}
            list={dispensaries.list}
          />
          <TextInput
            label="URL"
            url
            value={form.url}
            size={40}
            onInput={(url) => setForm({ ...form, url })}
          />
          <label>
            Items in the shape of
            <select value={itemForm} onChange={(event) => setItemForm(event.currentTarget.value as ItemForm)}>
              {itemFormOptions}
            </select>
          </label>
        </div>
        <CheckGroup
          legend="Events (none checked: every event)"
          options={EVENTS.map((name) => ({ value: name, label: name }))}
          chosen={events}
          onChange={setEvents}
        />
      </SecretForm>
      <h2>Webhooks</h2>
      <ColumnTable
        list={list}
        columns={[
          ['Id', (hook) => hook.id],
          ['Credential', (hook) => hook.credential],
          ['Dispensary', (hook) => dispensaries.labelOf(hook.dispensary_id)],
          ['URL', (hook) => hook.url, 'mono'],
          ['Events', (hook) => (hook.events ? hook.events.join(', ') : 'All')],
          [
            'Item shape',
            (hook) => (
              <select
                aria-label={`Item shape: webhook ${hook.id}`}
                value={hook.form}
                onChange={(event) => change(hook, { form: event.currentTarget.value })}
              >
                {itemFormOptions}
              </select>
            ),
          ],
          [
            'Enabled',
            (hook) => (
              <input
                type="checkbox"
                role="switch"
                aria-checked={hook.enabled}
                aria-label={`Enabled: webhook ${hook.id}`}
                checked={hook.enabled}
                onChange={(event) => change(hook, { enabled: event.currentTarget.checked })}
              />
            ),
          ],
          [
            'Failing since',
            (hook) =>
              `${when(hook.failing_since)}${hook.disabled_reason ? ` (${hook.disabled_reason})` : ''}`,
          ],
        ]}
        keyOf={(hook) => hook.id}
        actions={(hook) => (
          <td class="row">
            <button
              type="button"
              aria-expanded={open === hook.id}
              onClick={() => setOpen(open === hook.id ? undefined : hook.id)}
            >
              Deliveries of webhook {hook.id}
            </button>
            <DangerButton name={`Remove webhook ${hook.id}`} onClick={() => removing.ask(hook)}>
              Remove
            </DangerButton>
          </td>
        )}
      />
      {open !== undefined && <Deliveries id={open} path={path} retries={operator} />}
      {removing.target && (
        <Confirm
          title={`Remove webhook ${removing.target.id}?`}
          action="Remove webhook"
          {...removing.handlers}
        >
          <p>Its pending deliveries are dropped.</p>
        </Confirm>
      )}
    </>
  );
}

function Deliveries(props: { id: number; path: string; retries: boolean }) {
  const deliveries = useLoad(
    () => api<WebhookDelivery[]>('GET', `${props.path}/${props.id}/deliveries`),
    [props.id, props.path],
  );
  const [status, setStatus] = useState('');
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries of webhook {props.id}</h2>
      <p role="status">{status}</p>
      <ColumnTable
        list={deliveries}
        columns={[
          timeColumn('Created', 'created_at'),
          ['Type', (delivery) => delivery.type],
          ['Status', (delivery) => delivery.status],
          ['Attempts', (delivery) => delivery.attempts],
          ['Last answer', (delivery) => delivery.last_status_code ?? delivery.last_error ?? '—'],
          timeColumn('Next attempt', 'next_attempt_at'),
        ]}
        keyOf={(delivery) => delivery.id}
        actions={(delivery) => (
          <td>
            {props.retries && delivery.status !== 'delivered' && (
              <button
                type="button"
                aria-label={`Retry delivery ${delivery.id}`}
                onClick={async () => {
                  try {
                    await api(
                      'POST',
                      `/webhooks/${props.id}/deliveries/${encodeURIComponent(delivery.id)}/retry`,
                    );
                    setStatus(`Delivery ${delivery.id} queued again.`);
                    deliveries.reload();
                  } catch (failure) {
                    setStatus(messageOf(failure));
                  }
                }}
              >
                Retry
              </button>
            )}
          </td>
        )}
      />
    </section>
  );
}
