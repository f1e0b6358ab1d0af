import { useState } from 'preact/hooks';
import type { CredentialSummary, IssuedCredential } from '../../../src/client/types.js';
import { ApiError, api, messageOf } from '../api.js';
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

export function CredentialsPage() {
  const list = useLoad(() => api<CredentialSummary[]>('GET', '/credentials'), []);
  const dispensaries = useDispensaries();
  const [username, setUsername] = useState('');
  const [expires, setExpires] = useState('');
  const [allowed, setAllowed] = useState<number[]>([]);
  const [failure, setFailure] = useState<ApiError>();
  const [issued, setIssued] = useState<IssuedCredential>();
  const [revoking, setRevoking] = useState<string>();
  const nameOf = (id: number) => dispensaries.nameOf(id) ?? `#${id}`;
  return (
    <>
      <h1>Credentials</h1>
      <h2>Issue a credential</h2>
      {issued ? (
        <SecretOnce
          label={`Password of ${issued.username}`}
          value={issued.password}
          onDone={() => setIssued(undefined)}
        />
      ) : (
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            setFailure(undefined);
            try {
              setIssued(
                await api<IssuedCredential>('POST', '/credentials', {
                  username,
                  expires_at: expires ? new Date(expires).toISOString() : null,
                  dispensaries: allowed.length > 0 ? allowed : null,
                }),
              );
              setUsername('');
              setExpires('');
              setAllowed([]);
              list.reload();
            } catch (problem) {
              setFailure(
                problem instanceof ApiError ? problem : new ApiError(0, 'unknown', messageOf(problem)),
              );
            }
          }}
        >
          <div class="row">
            <label>
              Username
              <input
                value={username}
                required
                maxLength={64}
                aria-invalid={failure ? true : undefined}
                aria-describedby={failure ? 'issue-error' : undefined}
                onInput={(event) => setUsername(event.currentTarget.value)}
              />
            </label>
            <label>
              Expires (optional)
              <input
                type="datetime-local"
                value={expires}
                onInput={(event) => setExpires(event.currentTarget.value)}
              />
            </label>
          </div>
          <fieldset>
            <legend>Allowed dispensaries (none checked: every dispensary)</legend>
            {dispensaries.list?.map((dispensary) => (
              <label class="check" key={dispensary.id}>
                <input
                  type="checkbox"
                  checked={allowed.includes(dispensary.id)}
                  onChange={(event) =>
                    setAllowed(
                      event.currentTarget.checked
                        ? [...allowed, dispensary.id]
                        : allowed.filter((id) => id !== dispensary.id),
                    )
                  }
                />
                {dispensary.name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Issue credential</button>
          <ErrorText id="issue-error" message={failure?.at('username') ?? failure?.message} />
        </form>
      )}
      <h2>Issued credentials</h2>
      <Alert message={list.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last use</th>
            <th scope="col">Dispensaries</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.map((credential) => (
            <tr key={credential.username}>
              <td>{credential.username}</td>
              <td>{when(credential.created_at)}</td>
              <td>{when(credential.expires_at)}</td>
              <td>{when(credential.last_used_at)}</td>
              <td>{credential.dispensaries ? credential.dispensaries.map(nameOf).join(', ') : 'All'}</td>
              <RevokeCells
                name={credential.username}
                revokedAt={credential.revoked_at}
                onRevoke={() => setRevoking(credential.username)}
              />
            </tr>
          ))}
        </tbody>
      </table>
      {revoking && (
        <Confirm
          title={`Revoke ${revoking}?`}
          action="Revoke credential"
          onCancel={() => setRevoking(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/credentials/${encodeURIComponent(revoking)}`);
            setRevoking(undefined);
            list.reload();
          }}
        >
          <p>Requests with it are refused from now on. The username cannot be issued again.</p>
        </Confirm>
      )}
    </>
  );
}
