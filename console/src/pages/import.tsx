import { useState } from 'preact/hooks';
import type { ImportResult } from '../../../src/client/types.js';
import { API, api, messageOf, upload } from '../api.js';
import { Alert } from '../components.js';
import { TableHead } from '../lists.js';

interface Chosen {
  name: string;
  text: string;
  format: 'csv' | 'json';
}

/** Choose or drop a CSV or JSON file, see the dry run, then apply it as one atomic replace. */
export function ImportTab(props: { id: number }) {
  const [chosen, setChosen] = useState<Chosen>();
  const [preview, setPreview] = useState<ImportResult>();
  const [applied, setApplied] = useState<ImportResult>();
  const [progress, setProgress] = useState<number>();
  const [error, setError] = useState('');
  const [dragging, setDragging] = useState(false);
  const path = (format: string, dryRun: boolean) =>
    `/dispensaries/${props.id}/menu/import?format=${format}${dryRun ? '&dry_run=true' : ''}`;
  const contentType = (format: string) => (format === 'csv' ? 'text/csv' : 'text/plain');

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setError('');
    setPreview(undefined);
    setApplied(undefined);
    const format = /\.json$/i.test(file.name) || file.type === 'application/json' ? 'json' : 'csv';
    const text = await file.text();
    setChosen({ name: file.name, text, format });
    try {
      setPreview(await api<ImportResult>('POST', path(format, true), text, contentType(format)));
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-label="Import">
      <h2>Import a menu file</h2>
      <section
        aria-label="Drop a menu file here"
        class={`drop${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void choose(event.dataTransfer?.files[0]);
        }}
      >
        <label>
          Menu file (CSV or JSON)
          <input
            type="file"
            accept=".csv,.json,text/csv,application/json"
            onChange={(event) => void choose(event.currentTarget.files?.[0])}
          />
        </label>
        <p class="hint">…or drop it here. Nothing changes until you apply it.</p>
      </section>
      <Alert message={error} />
      {preview && chosen && (
        <section aria-labelledby="preview-title">
          <h3 id="preview-title">Dry run of {chosen.name}</h3>
          <p role="status">
            {preview.items} items would pass ({preview.active_items} active, {preview.price_entries} price
            entries);{' '}
            {preview.rejected.length === 0
              ? 'no problems.'
              : `${preview.rejected.length} problems: fix them and choose the file again.`}
          </p>
          {preview.rejected.length > 0 && (
            <table>
              <caption>Rejected rows</caption>
              <TableHead columns={['Line', 'Field', 'Reason']} />
              <tbody>
                {preview.rejected.map((problem, index) => (
                  <tr key={index}>
                    <td>{problem.line ?? '—'}</td>
                    <td>{problem.field}</td>
                    <td>{problem.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <button
            type="button"
            disabled={preview.rejected.length > 0 || progress !== undefined}
            onClick={async () => {
              setError('');
              setProgress(0);
              try {
                const result = await upload<ImportResult>(
                  path(chosen.format, false),
                  chosen.text,
                  contentType(chosen.format),
                  setProgress,
                );
                setApplied(result);
                setPreview(undefined);
              } catch (failure) {
                setError(messageOf(failure));
              } finally {
                setProgress(undefined);
              }
            }}
          >
            Apply import
          </button>
          {progress !== undefined && (
            <label>
              Uploading and replacing the menu
              <progress value={progress < 1 ? progress : undefined} max={1} />
            </label>
          )}
        </section>
      )}
      {applied && (
        <p role="status" class="saved">
          Imported: the menu now has {applied.items} items ({applied.active_items} active,{' '}
          {applied.price_entries} price entries).
        </p>
      )}
      <h2>Export</h2>
      <p class="row">
        <a href={`${API}/dispensaries/${props.id}/menu/export?format=csv`} download>
          Export CSV
        </a>
        <a href={`${API}/dispensaries/${props.id}/menu/export?format=json`} download>
          Export JSON
        </a>
      </p>
    </section>
  );
}
