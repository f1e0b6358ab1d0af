import { useEffect, useState } from 'preact/hooks';
import type { DispensaryDetail, RotatedToken, StoreInfo } from '../../../src/client/types.js';
import { ApiError, api, type JsonSchema, messageOf, schemaOf } from '../api.js';
import { Alert, ErrorText, SecretOnce } from '../components.js';

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
            setFailure(
              problem instanceof ApiError ? problem : new ApiError(0, 'unknown', messageOf(problem)),
            );
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
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Closed</th>
                <th scope="col">Opens</th>
                <th scope="col">Closes</th>
              </tr>
            </thead>
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
                    <td>
                      <input
                        type="time"
                        aria-label={`${labelOf(day)} opens`}
                        value={entry.open ?? ''}
                        onInput={(event) => setDay(day, { open: event.currentTarget.value || null })}
                      />
                    </td>
                    <td>
                      <input
                        type="time"
                        aria-label={`${labelOf(day)} closes`}
                        value={entry.close ?? ''}
                        onInput={(event) => setDay(day, { close: event.currentTarget.value || null })}
                      />
                      <ErrorText message={message} />
                    </td>
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
  const [token, setToken] = useState<string>();
  const [error, setError] = useState('');
  return (
    <section aria-labelledby="rotate-title">
      <h2 id="rotate-title">Dispensary token</h2>
      {token ? (
        <SecretOnce label="New dispensary token" value={token} onDone={() => setToken(undefined)} />
      ) : (
        <form
          class="row"
          onSubmit={async (event) => {
            event.preventDefault();
            setError('');
            try {
              const rotated = await api<RotatedToken>('POST', `/dispensaries/${props.id}/rotate-token`, {
                grace_seconds: Math.round(Number(hours) * 3600),
              });
              setToken(rotated.token);
            } catch (problem) {
              setError(messageOf(problem));
            }
          }}
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
          <button type="submit">Rotate token</button>
          <ErrorText message={error} />
        </form>
      )}
      <p class="hint">
        The old token keeps working for the grace period, so integrators can switch without a gap.
      </p>
    </section>
  );
}
