import { useState } from 'preact/hooks';
import type { AuditEntry } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Alert, useDispensaries, useLoad, when } from '../components.js';
import { DispensarySelect, TableHead } from '../lists.js';

export function AuditPage() {
  const dispensaries = useDispensaries();
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
        <DispensarySelect
          value={form.dispensary}
          onChange={(dispensary) => setForm({ ...form, dispensary })}
          list={dispensaries.list}
        >
          <option value="">All</option>
        </DispensarySelect>
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
        <TableHead columns={['When', 'Actor', 'Dispensary', 'Action', 'Detail']} />
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
