import { useEffect, useState } from 'preact/hooks';
import type { DispensaryDetail, RotatedToken, StoreInfo } from '../../../src/client/types.js';
import { type ApiError, api, type JsonSchema, schemaOf } from '../api.js';
import { Alert, ErrorText } from '../components.js';
import { TableHead } from '../lists.js';
import { asApiError, SecretForm, useSecretForm } from '../secret-form.js';

type Hours = NonNullable<StoreInfo['hours']>;
type Day = keyof Hours;

const labelOf = (name: string) => (name.charAt(0).toUpperCase() + name.slice(1)).replaceAll('_', ' ');

/** Store information and weekly hours; the fields come from the OpenAPI StoreInfo schema. */
export function StoreTab(props: { detail: DispensaryDetail; onSaved: () => void }) {
  const [schema, setSchema] = useState<JsonSchema>();
  const [draft, setDraft] = useState<Record<string, unknown>>({ ...props.detail.store });
  const [failure, setFailure] = useState<ApiError>();
  const [status, setStatus] = useState('');
  useEffect(() => {
    schemaOf('StoreInfo').then(setSchema, () => undefined);
  }, []);
  const days = Object.keys(schema?.properties?.hours?.properties ?? {}) as Day[];
  const hours = (draft.hours as Hours | null) ?? null;
  const setDay = (day: Day, change: Partial<Hours[Day]>) => {
    const base =
      hours ??
      (Object.fromEntries(days.map((name) => [name, { open: null, close: null, closed: true }])) as Hours);
    setDraft({ ...draft, hours: { ...base, [day]: { ...base[day], ...change } } });
  };
  return (
    <section aria-label="Store">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setFailure(undefined);
          setStatus('');
          const { updated_at: _updatedAt, ...patch } = draft;
          try {
            await api('PATCH', `/dispensaries/${props.detail.id}`, patch);
            setStatus('Store information saved.');
            props.onSaved();
          } catch (problem) {
            setFailure(asApiError(problem));
          }
        }}
      >
        <div class="fields">
          {Object.entries(schema?.properties ?? {})
            .filter(([name]) => name !== 'hours' && name !== 'updated_at')
            .map(([name, field]) => {
              const id = `store-${name}`;
              const message = failure?.at(name);
              return (
                <div class="field" key={name}>
                  <label for={id}>{labelOf(name)}</label>
                  <input
                    id={id}
                    value={draft[name] === null || draft[name] === undefined ? '' : String(draft[name])}
                    title={field.description}
                    aria-invalid={message ? true : undefined}
                    aria-describedby={message ? `${id}-error` : undefined}
                    onInput={(event) => {
                      const text = event.currentTarget.value;
                      setDraft({
                        ...draft,
                        [name]: text === '' && [field.type].flat().includes('null') ? null : text,
                      });
                    }}
                  />
                  <ErrorText id={`${id}-error`} message={message} />
                </div>
              );
            })}
        </div>
        <fieldset>
          <legend>Weekly hours</legend>
          <ErrorText message={failure?.at('hours')} />
          <table>
            <TableHead columns={['Day', 'Closed', 'Opens', 'Closes']} />
            <tbody>
              {days.map((day) => {
                const entry = hours?.[day] ?? { open: null, close: null, closed: true };
                const message = failure?.problems.find((problem) =>
                  problem.field.startsWith(`hours.${day}`),
                )?.message;
                return (
                  <tr key={day}>
                    <th scope="row">{labelOf(day)}</th>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${labelOf(day)} closed`}
                        checked={entry.closed}
                        onChange={(event) => setDay(day, { closed: event.currentTarget.checked })}
                      />
                    </td>
                    {(['open', 'close'] as const).map((edge) => (
                      <td key={edge}>
                        <input
                          type="time"
                          aria-label={`${labelOf(day)} ${edge === 'open' ? 'opens' : 'closes'}`}
                          value={entry[edge] ?? ''}
                          onInput={(event) => setDay(day, { [edge]: event.currentTarget.value || null })}
                        />
                        {edge === 'close' && <ErrorText message={message} />}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </fieldset>
        <Alert message={failure?.message} />
        <button type="submit">Save store information</button>
        <p role="status">{status}</p>
      </form>
      <RotateToken id={props.detail.id} />
    </section>
  );
}

function RotateToken(props: { id: number }) {
  const [hours, setHours] = useState('24');
  const rotating = useSecretForm(
    () =>
      api<RotatedToken>('POST', `/dispensaries/${props.id}/rotate-token`, {
        grace_seconds: Math.round(Number(hours) * 3600),
      }),
    () => undefined,
  );
  return (
    <section aria-labelledby="rotate-title">
      <h2 id="rotate-title">Dispensary token</h2>
      <SecretForm
        state={rotating}
        secret={(rotated) => ({ label: 'New dispensary token', value: rotated.token })}
        class="row"
        submit="Rotate token"
      >
        <label>
          Grace period (hours)
          <input
            inputMode="decimal"
            size={4}
            value={hours}
            onInput={(event) => setHours(event.currentTarget.value)}
          />
        </label>
      </SecretForm>
      <p class="hint">
        The old token keeps working for the grace period, so integrators can switch without a gap.
      </p>
    </section>
  );
}
