import { useState } from 'preact/hooks';
import type { AdminKeySummary, CreatedAdminKey } from '../../../src/client/types.js';
import { api, messageOf } from '../api.js';
import {
  Alert,
  Confirm,
  ErrorText,
  RevokeCells,
  SecretOnce,
  useDispensaries,
  useLoad,
  when,
} from '../components.js';

export function AdminKeysPage() {
  const list = useLoad(() => api<AdminKeySummary[]>('GET', '/admin-keys'), []);
  const dispensaries = useDispensaries();
  const [name, setName] = useState('');
  const [scope, setScope] = useState('all');
  const [error, setError] = useState('');
  const [created, setCreated] = useState<CreatedAdminKey>();
  const [revoking, setRevoking] = useState<string>();
  const scopeName = (value: string) => {
    if (value === 'all') return 'All dispensaries';
    const id = Number(value.split(':')[1]);
    return dispensaries.nameOf(id) ?? value;
  };
  return (
    <>
      <h1>Admin keys</h1>
      <h2>Create an admin key</h2>
      {created ? (
        <SecretOnce
          label={`Admin key ${created.name}`}
          value={created.key}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form
          class="row"
          onSubmit={async (event) => {
            event.preventDefault();
            setError('');
            try {
              setCreated(await api<CreatedAdminKey>('POST', '/admin-keys', { name, scope }));
              setName('');
              list.reload();
            } catch (failure) {
              setError(messageOf(failure));
            }
          }}
        >
          <label>
            Key name
            <input
              value={name}
              required
              maxLength={64}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <label>
            Scope
            <select value={scope} onChange={(event) => setScope(event.currentTarget.value)}>
              <option value="all">All dispensaries</option>
              {dispensaries.list?.map((dispensary) => (
                <option key={dispensary.id} value={`dispensary:${dispensary.id}`}>
                  Only {dispensary.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Create admin key</button>
          <ErrorText message={error} />
        </form>
      )}
      <h2>Keys</h2>
      <Alert message={list.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scope</th>
            <th scope="col">Created</th>
            <th scope="col">Last use</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.map((key) => (
            <tr key={key.name}>
              <td>{key.name}</td>
              <td>{scopeName(key.scope)}</td>
              <td>{when(key.created_at)}</td>
              <td>{when(key.last_used_at)}</td>
              <RevokeCells
                name={key.name}
                revokedAt={key.revoked_at}
                onRevoke={() => setRevoking(key.name)}
              />
            </tr>
          ))}
        </tbody>
      </table>
      {revoking && (
        <Confirm
          title={`Revoke admin key ${revoking}?`}
          action="Revoke key"
          onCancel={() => setRevoking(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/admin-keys/${encodeURIComponent(revoking)}`);
            setRevoking(undefined);
            list.reload();
          }}
        >
          <p>Scripts using it, and console sessions signed in with it, stop working at once.</p>
        </Confirm>
      )}
    </>
  );
}
