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
  const creating = useSecretForm(
    () =>
      api<CreatedWebhook>('POST', path, {
        ...(operator ? { credential: form.credential } : {}),
        dispensary_id: Number(form.dispensary || dispensaries.list?.[0]?.id),
        url: form.url,
        events: events.length > 0 ? events : null,
      }),
    () => {
      setForm({ credential: '', dispensary: form.dispensary, url: '' });
      list.reload();
    },
  );
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
            'Enabled',
            (hook) => (
              <input
                type="checkbox"
                role="switch"
                aria-checked={hook.enabled}
                aria-label={`Enabled: webhook ${hook.id}`}
                checked={hook.enabled}
                onChange={async (event) => {
                  try {
                    await api('PATCH', `${path}/${hook.id}`, { enabled: event.currentTarget.checked });
                    list.reload();
                  } catch (failure) {
                    creating.fail(failure);
                  }
                }}
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
