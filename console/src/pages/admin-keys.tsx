import { useState } from 'preact/hooks';
import type { AdminKeySummary, CreatedAdminKey } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Confirm, TextInput, useDispensaries, useLoad } from '../components.js';
import { ColumnTable, RevokeCell, statusColumn, timeColumn, useDeletion } from '../lists.js';
import { SecretForm, useSecretForm } from '../secret-form.js';

export function AdminKeysPage() {
  const list = useLoad(() => api<AdminKeySummary[]>('GET', '/admin-keys'), []);
  const dispensaries = useDispensaries();
  const [name, setName] = useState('');
  const [scope, setScope] = useState('all');
  const creating = useSecretForm(
    () => api<CreatedAdminKey>('POST', '/admin-keys', { name, scope }),
    () => {
      setName('');
      list.reload();
    },
  );
  const revoking = useDeletion((key: string) => `/admin-keys/${encodeURIComponent(key)}`, list.reload);
  const scopeName = (value: string) => {
    if (value === 'all') return 'All dispensaries';
    const id = Number(value.split(':')[1]);
    return dispensaries.nameOf(id) ?? value;
  };
  return (
    <>
      <h1>Admin keys</h1>
      <h2>Create an admin key</h2>
      <SecretForm
        state={creating}
        secret={(created) => ({ label: `Admin key ${created.name}`, value: created.key })}
        class="row"
        submit="Create admin key"
      >
        <TextInput label="Key name" value={name} onInput={setName} maxLength={64} />
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
      </SecretForm>
      <h2>Keys</h2>
      <ColumnTable
        list={list}
        columns={[
          ['Name', (key) => key.name],
          ['Scope', (key) => scopeName(key.scope)],
          timeColumn('Created', 'created_at'),
          timeColumn('Last use', 'last_used_at'),
          statusColumn(),
        ]}
        keyOf={(key) => key.name}
        actions={(key) => <RevokeCell name={key.name} revokedAt={key.revoked_at} onRevoke={revoking.ask} />}
      />
      {revoking.target && (
        <Confirm title={`Revoke admin key ${revoking.target}?`} action="Revoke key" {...revoking.handlers}>
          <p>Scripts using it, and console sessions signed in with it, stop working at once.</p>
        </Confirm>
      )}
    </>
  );
}
