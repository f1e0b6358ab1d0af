import { useState } from 'preact/hooks';
import type { CreatedWebhook, WebhookDelivery, WebhookSummary } from '../../../src/client/types.js';
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
  const list = useLoad(() => api<WebhookSummary[]>('GET', '/webhooks'), []);
  const dispensaries = useDispensaries();
  const [form, setForm] = useState({ credential: '', dispensary: '', url: '' });
  const [events, setEvents] = useState<string[]>([]);
  const [itemForm, setItemForm] = useState<ItemForm>('b');
  const creating = useSecretForm(
    () =>
      api<CreatedWebhook>('POST', '/webhooks', {
        credential: form.credential,
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
      await api('PATCH', `/webhooks/${hook.id}`, patch);
      list.reload();
    } catch (failure) {
      creating.fail(failure);
    }
  };
  const removing = useDeletion((hook: WebhookSummary) => `/webhooks/${hook.id}`, list.reload);
  const [open, setOpen] = useState<number>();
  return (
    <>
      <h1>Webhooks</h1>
      <h2>Subscribe a credential</h2>
      <SecretForm
        state={creating}
        secret={(created) => ({ label: `Signing secret of webhook ${created.id}`, value: created.secret })}
        submit="Add webhook"
      >
        <div class="row">
          <TextInput
            label="Credential (username)"
            value={form.credential}
            onInput={(credential) => setForm({ ...form, credential })}
          />
          <DispensarySelect
            value={form.dispensary}
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
      {open !== undefined && <Deliveries id={open} />}
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

function Deliveries(props: { id: number }) {
  const deliveries = useLoad(
    () => api<WebhookDelivery[]>('GET', `/webhooks/${props.id}/deliveries`),
    [props.id],
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
            {delivery.status !== 'delivered' && (
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
