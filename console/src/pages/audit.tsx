import { useState } from 'preact/hooks';
import type { AuditEntry, DispensarySummary } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Alert, useLoad, when } from '../components.js';

export function AuditPage() {
  const dispensaries = useLoad(() => api<DispensarySummary[]>('GET', '/dispensaries'), []);
  const [form, setForm] = useState({ dispensary: '', actor: '', since: '', until: '' });
  const [query, setQuery] = useState('');
  const entries = useLoad(() => api<AuditEntry[]>('GET', `/audit${query}`), [query]);
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onInput: (event: { currentTarget: { value: string } }) =>
      setForm({ ...form, [name]: event.currentTarget.value }),
  });
  return (
    <>
      <h1>Audit log</h1>
      <form
        class="row filters"
        onSubmit={(event) => {
          event.preventDefault();
          const params = new URLSearchParams();
          if (form.dispensary) params.set('dispensary_id', form.dispensary);
          if (form.actor.trim()) params.set('actor', form.actor.trim());
          if (form.since) params.set('since', new Date(form.since).toISOString());
          if (form.until) params.set('until', new Date(form.until).toISOString());
          const text = params.toString();
          setQuery(text ? `?${text}` : '');
        }}
      >
        <label>
          Dispensary
          <select
            value={form.dispensary}
            onChange={(event) => setForm({ ...form, dispensary: event.currentTarget.value })}
          >
            <option value="">All</option>
            {dispensaries.data?.map((dispensary) => (
              <option key={dispensary.id} value={String(dispensary.id)}>
                {dispensary.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor
          <input placeholder="key:NAME or cli" {...field('actor')} />
        </label>
        <label>
          From
          <input type="datetime-local" {...field('since')} />
        </label>
        <label>
          To
          <input type="datetime-local" {...field('until')} />
        </label>
        <button type="submit">Apply filters</button>
      </form>
      <Alert message={entries.error} />
      <p role="status">{entries.data ? `${entries.data.length} entries, newest first` : 'Loading…'}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Dispensary</th>
            <th scope="col">Action</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {entries.data
            ?.slice()
            .reverse()
            .map((entry) => (
              <tr key={entry.id}>
                <td>{when(entry.at)}</td>
                <td>{entry.actor}</td>
                <td>{entry.dispensary_id ?? '—'}</td>
                <td>{entry.action}</td>
                <td class="mono">{JSON.stringify(entry.detail)}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </>
  );
}
