import { useState } from 'preact/hooks';
import type {
  IntegratorAccessToken,
  IntegratorPortal,
  RotatedCredentialPassword,
  UsageCount,
} from '../../../src/client/types.js';
import { api } from '../api.js';
import { ErrorText, SecretOnce, TextInput, useLoad, when } from '../components.js';
import { ListTable } from '../lists.js';
import { asApiError } from '../secret-form.js';
import { UsageCharts } from './usage.js';
import { WebhookManager } from './webhooks.js';

/** The periods the usage chart shows, hours. */
const PERIODS = [24, 48] as const;

/**
 * An integrator's own page (it registered at /developers): its API credential, a new password for it
 * (shown once), its requests to read dispensaries and, for each one approved, a token of its own
 * (shown once); its credential's requests per hour, and its own webhooks (the operators' chart and
 * webhook list, over its own routes). The same routes as any sync API client's, under
 * /admin/v1/developer.
 */
export function PortalPage() {
  const portal = useLoad(() => api<IntegratorPortal>('GET', '/developer'), []);
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const [dispensary, setDispensary] = useState('');
  const [error, setError] = useState('');
  const run = async (work: () => Promise<void>) => {
    setError('');
    try {
      await work();
    } catch (failure) {
      setError(asApiError(failure).message);
    }
  };
  const credential = portal.data?.integrator.credential;
  const [hours, setHours] = useState<number>(PERIODS[0]);
  const usage = useLoad(() => api<UsageCount[]>('GET', `/developer/usage?hours=${hours}`), [hours]);
  const approved = (portal.data?.access ?? [])
    .filter((request) => request.status === 'approved')
    .map((request) => ({ id: request.dispensary_id, name: request.dispensary_name }));
  const labelOf = (id: number) => approved.find((dispensary) => dispensary.id === id)?.name ?? `#${id}`;
  return (
    <>
      <h1>Your API access</h1>
      <ErrorText message={portal.error} />
      {credential && (
        <>
          <h2>Credential</h2>
          <p>
            Username: <code>{credential}</code>. Send it with its password and a dispensary’s token to
            <code> /menu</code>, <code>/store</code> and <code>/inventory</code> (see{' '}
            <a href="/docs">/docs</a>).
          </p>
          <button
            type="button"
            onClick={() =>
              run(async () => {
                const rotated = await api<RotatedCredentialPassword>('POST', '/developer/rotate-password');
                setSecret({ label: `Password of ${rotated.username}`, value: rotated.password });
              })
            }
          >
            New password
          </button>
        </>
      )}
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(undefined)} />}
      <ErrorText message={error} />
      <h2>Ask a dispensary for access</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          run(async () => {
            await api('POST', '/developer/access', { dispensary });
            setDispensary('');
            portal.reload();
          });
        }}
      >
        <TextInput
          label="Dispensary’s public name"
          value={dispensary}
          onInput={setDispensary}
          maxLength={200}
        />
        <button type="submit">Ask for access</button>
      </form>
      <h2>Your requests</h2>
      <ListTable
        list={{ data: portal.data?.access, error: '' }}
        columns={['Dispensary', 'Status', 'Asked']}
        actions
        row={(request) => (
          <tr key={request.id}>
            <td>{request.dispensary_name}</td>
            <td>{request.status}</td>
            <td>{when(request.created_at)}</td>
            <td>
              {request.status === 'approved' && (
                <button
                  type="button"
                  onClick={() =>
                    run(async () => {
                      const issued = await api<IntegratorAccessToken>(
                        'POST',
                        `/developer/access/${request.id}/token`,
                      );
                      setSecret({ label: `Token for ${request.dispensary_name}`, value: issued.token });
                      portal.reload();
                    })
                  }
                >
                  {request.token_issued ? 'New token' : 'Show token'}{' '}
                  <span class="visually-hidden">for {request.dispensary_name}</span>
                </button>
              )}
            </td>
          </tr>
        )}
      />
      <h2>Usage</h2>
      <p>Your credential’s requests per hour (UTC hours; saved at most once a minute).</p>
      <label>
        Period
        <select value={String(hours)} onChange={(event) => setHours(Number(event.currentTarget.value))}>
          {PERIODS.map((period) => (
            <option key={period} value={String(period)}>
              Last {period} hours
            </option>
          ))}
        </select>
      </label>
      <ErrorText message={usage.error} />
      <UsageCharts rows={usage.data} hours={hours} period={`${hours} hours`} />
      <WebhookManager
        path="/developer/webhooks"
        dispensaries={{ list: approved, labelOf }}
        operator={false}
      />
    </>
  );
}
