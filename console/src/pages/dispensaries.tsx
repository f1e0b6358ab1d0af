import { useState } from 'preact/hooks';
import type { CreatedDispensary, DispensarySummary } from '../../../src/client/types.js';
import { ApiError, api, messageOf } from '../api.js';
import { Alert, Confirm, ErrorText, SecretOnce, useLoad, when } from '../components.js';
import { Link } from '../router.js';

export function DispensariesPage() {
  const list = useLoad(() => api<DispensarySummary[]>('GET', '/dispensaries'), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<CreatedDispensary>();
  const [removing, setRemoving] = useState<DispensarySummary>();
  return (
    <>
      <h1>Dispensaries</h1>
      <Alert message={list.error} />
      <table>
        <caption class="visually-hidden">Dispensaries</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Items</th>
            <th scope="col">Active items</th>
            <th scope="col">Last change</th>
            <th scope="col">Public pages</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.map((dispensary) => (
            <tr key={dispensary.id}>
              <td>
                <Link to={`/dispensaries/${dispensary.id}/menu`}>{dispensary.name}</Link>
              </td>
              <td>{dispensary.items}</td>
              <td>{dispensary.active_items}</td>
              <td>{when(dispensary.updated_at)}</td>
              <td>
                {dispensary.published && dispensary.slug ? (
                  <>
                    Published: <a href={`/m/${dispensary.slug}`}>/m/{dispensary.slug}</a>
                  </>
                ) : (
                  'Private'
                )}
              </td>
              <td>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove ${dispensary.name}`}
                  onClick={() => setRemoving(dispensary)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Create a dispensary</h2>
      {created ? (
        <SecretOnce
          label={`Token of ${created.name}`}
          value={created.token}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form
          class="row"
          onSubmit={async (event) => {
            event.preventDefault();
            setError(undefined);
            try {
              setCreated(await api<CreatedDispensary>('POST', '/dispensaries', { name }));
              setName('');
              list.reload();
            } catch (failure) {
              setError(
                failure instanceof ApiError ? (failure.at('name') ?? failure.message) : messageOf(failure),
              );
            }
          }}
        >
          <label>
            Name
            <input
              value={name}
              required
              maxLength={200}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'create-error' : undefined}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <button type="submit">Create dispensary</button>
          <ErrorText id="create-error" message={error} />
        </form>
      )}
      {removing && (
        <Confirm
          title={`Remove ${removing.name}?`}
          action="Remove dispensary"
          typed={removing.name}
          onCancel={() => setRemoving(undefined)}
          onConfirm={async () => {
            await api('DELETE', `/dispensaries/${removing.id}`);
            setRemoving(undefined);
            list.reload();
          }}
        >
          <p>Its menu and token go with it; integrators reading it get 403 from then on.</p>
        </Confirm>
      )}
    </>
  );
}
