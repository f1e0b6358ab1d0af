import { useState } from 'preact/hooks';
import type { CreatedDispensary, DispensarySummary } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Confirm, TextInput, useLoad, when } from '../components.js';
import { DangerButton, ListTable, useDeletion } from '../lists.js';
import { Link } from '../router.js';
import { SecretForm, useSecretForm } from '../secret-form.js';

export function DispensariesPage() {
  const list = useLoad(() => api<DispensarySummary[]>('GET', '/dispensaries'), []);
  const [name, setName] = useState('');
  const creating = useSecretForm(
    () => api<CreatedDispensary>('POST', '/dispensaries', { name }),
    () => {
      setName('');
      list.reload();
    },
  );
  const error = creating.messageAt('name');
  const removing = useDeletion(
    (dispensary: DispensarySummary) => `/dispensaries/${dispensary.id}`,
    list.reload,
  );
  return (
    <>
      <h1>Dispensaries</h1>
      <ListTable
        list={list}
        caption="Dispensaries"
        columns={['Name', 'Items', 'Active items', 'Last change', 'Public pages']}
        actions
        row={(dispensary) => (
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
              <DangerButton name={`Remove ${dispensary.name}`} onClick={() => removing.ask(dispensary)}>
                Remove
              </DangerButton>
            </td>
          </tr>
        )}
      />
      <h2>Create a dispensary</h2>
      <SecretForm
        state={creating}
        secret={(created) => ({ label: `Token of ${created.name}`, value: created.token })}
        class="row"
        submit="Create dispensary"
        errorAt={{ field: 'name', id: 'create-error' }}
      >
        <TextInput
          label="Name"
          value={name}
          onInput={setName}
          maxLength={200}
          invalidBy={error ? 'create-error' : undefined}
        />
      </SecretForm>
      {removing.target && (
        <Confirm
          title={`Remove ${removing.target.name}?`}
          action="Remove dispensary"
          typed={removing.target.name}
          {...removing.handlers}
        >
          <p>Its menu and token go with it; integrators reading it get 403 from then on.</p>
        </Confirm>
      )}
    </>
  );
}
