import { useState } from 'preact/hooks';
import type { CreatedWebhook, WebhookDelivery, WebhookSummary } from '../../../src/client/types.js';
import { api, messageOf } from '../api.js';
import { Confirm, ErrorText, TextInput, useDispensaries, useLoad, when } from '../components.js';
import { CheckGroup, DangerButton, DispensarySelect, ListTable, useDeletion } from '../lists.js';
import { SecretForm, useSecretForm } from '../secret-form.js';

const EVENTS = ['item.upserted', 'item.removed', 'store.updated'] as const;

/** Webhooks (an integrator credential subscribed to a dispensary's changes) and their deliveries. */
export function WebhooksPage() {
  const list = useLoad(() => api<WebhookSummary[]>('GET', '/webhooks'), []);
  const dispensaries = useDispensaries();
  const [form, setForm] = useState({ credential: '', dispensary: '', url: '' });
  const [events, setEvents] = useState<string[]>([]);
  const creating = useSecretForm(
    () =>
      api<CreatedWebhook>('POST', '/webhooks', {
        credential: form.credential,
        dispensary_id: Number(form.dispensary || dispensaries.list?.[0]?.id),
        url: form.url,
        events: events.length > 0 ? events : null,
      }),
    () => {
      setForm({ credential: '', dispensary: form.dispensary, url: '' });
      list.reload();
    },
  );
  const removing = useDeletion((hook: WebhookSummary) => `/webhooks/${hook.id}`, list.reload);
  const [open, setOpen] = useState<number>();
  return (
    <>
      <h1>Webhooks</h1>
      <h2>Subscribe a credential</h2>
      <SecretForm
        state={creating}
        secret={(created) => ({ label: `Signing secret of webhook ${created.id}`, value: created.secret })}
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
        </div>
        <CheckGroup
          legend="Events (none checked: every event)"
          options={EVENTS.map((name) => ({ value: name, label: name }))}
          chosen={events}
          onChange={setEvents}
        />
        <button type="submit">Add webhook</button>
        <ErrorText message={creating.failure?.message} />
      </SecretForm>
      <h2>Webhooks</h2>
      <ListTable
        list={list}
        columns={['Id', 'Credential', 'Dispensary', 'URL', 'Events', 'Enabled', 'Failing since']}
        actions
        row={(hook) => (
          <tr key={hook.id}>
            <td>{hook.id}</td>
            <td>{hook.credential}</td>
            <td>{dispensaries.labelOf(hook.dispensary_id)}</td>
            <td class="mono">{hook.url}</td>
            <td>{hook.events ? hook.events.join(', ') : 'All'}</td>
            <td>
              <input
                type="checkbox"
                role="switch"
                aria-checked={hook.enabled}
                aria-label={`Enabled: webhook ${hook.id}`}
                checked={hook.enabled}
                onChange={async (event) => {
                  try {
                    await api('PATCH', `/webhooks/${hook.id}`, { enabled: event.currentTarget.checked });
                    list.reload();
                  } catch (failure) {
                    creating.fail(failure);
                  }
                }}
              />
            </td>
            <td>
              {when(hook.failing_since)}
              {hook.disabled_reason ? ` (${hook.disabled_reason})` : ''}
            </td>
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
          </tr>
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
      <ListTable
        list={deliveries}
        columns={['Created', 'Type', 'Status', 'Attempts', 'Last answer', 'Next attempt']}
        actions
        row={(delivery) => (
          <tr key={delivery.id}>
            <td>{when(delivery.created_at)}</td>
            <td>{delivery.type}</td>
            <td>{delivery.status}</td>
            <td>{delivery.attempts}</td>
            <td>{delivery.last_status_code ?? delivery.last_error ?? '—'}</td>
            <td>{when(delivery.next_attempt_at)}</td>
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
          </tr>
        )}
      />
    </section>
  );
}
