import { useState } from 'preact/hooks';
import type { CredentialSummary, IssuedCredential } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Confirm, TextInput, useDispensaries, useLoad } from '../components.js';
import { CheckGroup, ColumnTable, RevokeCell, statusColumn, timeColumn, useDeletion } from '../lists.js';
import { SecretForm, useSecretForm } from '../secret-form.js';

export function CredentialsPage() {
  const list = useLoad(() => api<CredentialSummary[]>('GET', '/credentials'), []);
  const dispensaries = useDispensaries();
  const [username, setUsername] = useState('');
  const [expires, setExpires] = useState('');
  const [allowed, setAllowed] = useState<number[]>([]);
  const issuing = useSecretForm(
    () =>
      api<IssuedCredential>('POST', '/credentials', {
        username,
        expires_at: expires ? new Date(expires).toISOString() : null,
        dispensaries: allowed.length > 0 ? allowed : null,
      }),
    () => {
      setUsername('');
      setExpires('');
      setAllowed([]);
      list.reload();
    },
  );
  const failure = issuing.failure;
  const revoking = useDeletion((name: string) => `/credentials/${encodeURIComponent(name)}`, list.reload);
  return (
    <>
      <h1>Credentials</h1>
      <h2>Issue a credential</h2>
      <SecretForm
        state={issuing}
        secret={(issued) => ({ label: `Password of ${issued.username}`, value: issued.password })}
        submit="Issue credential"
        errorAt={{ field: 'username', id: 'issue-error' }}
      >
        <div class="row">
          <TextInput
            label="Username"
            value={username}
            onInput={setUsername}
            maxLength={64}
            invalidBy={failure ? 'issue-error' : undefined}
          />
          <label>
            Expires (optional)
            <input
              type="datetime-local"
              value={expires}
              onInput={(event) => setExpires(event.currentTarget.value)}
            />
          </label>
        </div>
        <CheckGroup
          legend="Allowed dispensaries (none checked: every dispensary)"
          options={dispensaries.list?.map((dispensary) => ({ value: dispensary.id, label: dispensary.name }))}
          chosen={allowed}
          onChange={setAllowed}
        />
      </SecretForm>
      <h2>Issued credentials</h2>
      <ColumnTable
        list={list}
        columns={[
          ['Username', (credential) => credential.username],
          timeColumn('Created', 'created_at'),
          timeColumn('Expires', 'expires_at'),
          timeColumn('Last use', 'last_used_at'),
          [
            'Dispensaries',
            (credential) =>
              credential.dispensaries
                ? credential.dispensaries.map(dispensaries.labelOf).join(', ') || 'None yet'
                : 'All',
          ],
          statusColumn(),
        ]}
        keyOf={(credential) => credential.username}
        actions={(credential) => (
          <RevokeCell name={credential.username} revokedAt={credential.revoked_at} onRevoke={revoking.ask} />
        )}
      />
      {revoking.target && (
        <Confirm title={`Revoke ${revoking.target}?`} action="Revoke credential" {...revoking.handlers}>
          <p>Requests with it are refused from now on. The username cannot be issued again.</p>
        </Confirm>
      )}
    </>
  );
}
