import { useState } from 'preact/hooks';
import type { CreatedWebhook, WebhookDelivery, WebhookSummary } from '../../../src/client/types.js';
import { api, messageOf } from '../api.js';
import { Alert, Confirm, ErrorText, SecretOnce, useDispensaries, useLoad, when } from '../components.js';

const EVENTS = ['item.upserted', 'item.removed', 'store.updated'] as const;

/** Webhooks (an integrator credential subscribed to a dispensary's changes) and their deliveries. */
export function WebhooksPage() {
  const list = useLoad(() => api<WebhookSummary[]>('GET', '/webhooks'), []);
  const dispensaries = useDispensaries();
  const [form, setForm] = useState({ credential: '', dispensary: '', url: '' });
  const [events, setEvents] = useState<string[]>([]);
  const [error, setError] = useState('');
  const [created, setCreated] = useState<CreatedWebhook>();
  const [removing, setRemoving] = useState<WebhookSummary>();
  const [open, setOpen] = useState<number>();
  const dispensaryName = (id: number) => dispensaries.nameOf(id) ?? `#${id}`;
  return (
    <>
      <h1>Webhooks</h1>
      <h2>Subscribe a credential</h2>
      {created ? (
        <SecretOnce
          label={`Signing secret of webhook ${created.id}`}
          value={created.secret}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            setError('');
            try {
              setCreated(
                await api<CreatedWebhook>('POST', '/webhooks', {
                  credential: form.credential,
                  dispensary_id: Number(form.dispensary || dispensaries.list?.[0]?.id),
                  url: form.url,
                  events: events.length > 0 ? events : null,
                }),
              );
              setForm({ credential: '', dispensary: form.dispensary, url: '' });
              list.reload();
            } catch (failure) {
              setError(messageOf(failure));
            }
          }}
        >
          <div class="row">
            <label>
              Credential (username)
              <input
                value={form.credential}
                required
                onInput={(event) => setForm({ ...form, credential: event.currentTarget.value })}
              />
            </label>
            <label>
              Dispensary
              <select
                value={form.dispensary}
                onChange={(event) => setForm({ ...form, dispensary: event.currentTarget.value })}
              >
                {dispensaries.list?.map((dispensary) => (
                  <option key={dispensary.id} value={String(dispensary.id)}>
                    {dispensary.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              URL
              <input
                type="url"
                value={form.url}
                required
                size={40}
                onInput={(event) => setForm({ ...form, url: event.currentTarget.value })}
              />
            </label>
          </div>
          <fieldset>
            <legend>Events (none checked: every event)</legend>
            {EVENTS.map((name) => (
              <label class="check" key={name}>
                <input
                  type="checkbox"
                  checked={events.includes(name)}
                  onChange={(event) =>
                    setEvents(
                      event.currentTarget.checked
                        ? [...events, name]
                        : events.filter((item) => item !== name),
                    )
                  }
                />
                {name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Add webhook</button>
          <ErrorText message={error} />
        </form>
      )}
      <h2>Webhooks</h2>
      <Alert message={list.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Credential</th>
            <th scope="col">Dispensary</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Enabled</th>
            <th scope="col">Failing since</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.map((hook) => (
            <tr key={hook.id}>
              <td>{hook.id}</td>
              <td>{hook.credential}</td>
              <td>{dispensaryName(hook.dispensary_id)}</td>
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
                      setError(messageOf(failure));
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
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove webhook ${hook.id}`}
                  onClick={() => setRemoving(hook)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open !== undefined && <Deliveries id={open} />}
      {removing && (
        <Confirm
          title={`Remove webhook ${removing.id}?`}
          action="Remove webhook"
          onCancel={() => setRemoving(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/webhooks/${removing.id}`);
            setRemoving(undefined);
            list.reload();
          }}
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
      <Alert message={deliveries.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.map((delivery) => (
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
          ))}
        </tbody>
      </table>
    </section>
  );
}
