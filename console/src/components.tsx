import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DispensarySummary } from '../../src/client/types.js';
import { api, messageOf } from './api.js';

/**
 * Copies a field's text to the clipboard. Where the Clipboard API is refused (a page not served over
 * HTTPS, a denied permission) the field is selected and the browser's copy command used instead.
 */
async function copyFrom(field: HTMLInputElement | HTMLTextAreaElement | null, value: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(value);
  } catch {
    field?.select();
    document.execCommand('copy');
  }
}

/** A secret shown once (a token, a password, an admin key), with a Copy button. */
export function SecretOnce(props: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <section class="secret" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong> — shown once: copy it now, it cannot be shown again.
      </p>
      <div class="row">
        <input ref={field} readOnly value={props.value} aria-label={props.label} class="mono" size={48} />
        <button
          type="button"
          onClick={async () => {
            await copyFrom(field.current, props.value);
            setCopied(true);
          }}
        >
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
      <p role="status">{copied ? 'Copied to the clipboard.' : ''}</p>
    </section>
  );
}

/** A value to hand on (an address, a snippet to paste into a web page), read-only, with a Copy button. */
export function CopyField(props: { label: string; value: string; lines?: number }) {
  const [copied, setCopied] = useState(false);
  const id = `copy-${props.label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <div class="field copy">
      <label for={id}>{props.label}</label>
      <div class="row">
        {props.lines ? (
          <textarea id={id} readOnly rows={props.lines} class="mono" value={props.value} />
        ) : (
          <input id={id} readOnly class="mono" value={props.value} />
        )}
        <button
          type="button"
          aria-label={`Copy ${props.label.toLowerCase()}`}
          onClick={async () => {
            const field = document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement | null;
            await copyFrom(field, props.value);
            setCopied(true);
          }}
        >
          Copy
        </button>
      </div>
      <span role="status" class="saved">
        {copied ? 'Copied.' : ''}
      </span>
    </div>
  );
}

/** A modal confirmation (native dialog: focus is trapped and Escape cancels). */
export function Confirm(props: {
  title: string;
  children?: ComponentChildren;
  action: string;
  /** When set, the action is enabled only once this text is typed. */
  typed?: string;
  onConfirm: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const ready = props.typed === undefined || text === props.typed;
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={props.onCancel}>
      <form
        method="dialog"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!ready) return;
          try {
            await props.onConfirm();
          } catch (failure) {
            setError(failure instanceof Error ? failure.message : String(failure));
          }
        }}
      >
        <h2 id="confirm-title">{props.title}</h2>
        {props.children}
        {props.typed !== undefined && (
          <label>
            Type {props.typed} to confirm
            <input value={text} onInput={(event) => setText(event.currentTarget.value)} autoComplete="off" />
          </label>
        )}
        <Alert message={error} />
        <div class="row">
          <button type="submit" class="danger" disabled={!ready}>
            {props.action}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** An error message, announced when it appears; nothing while there is none. */
function errorMessage(Tag: 'p' | 'span') {
  return (props: { id?: string; message?: string | undefined }) =>
    props.message ? (
      <Tag id={props.id} role="alert" class="error">
        {props.message}
      </Tag>
    ) : null;
}

/** A failure to read above what it concerns (a list that did not load, a save refused as a whole). */
export const Alert = errorMessage('p');

/** The server's message at the field it concerns (point aria-describedby at its id). */
export const ErrorText = errorMessage('span');

/** A required text field in its label; `invalidBy` names the message that says what is wrong, if any. */
export function TextInput(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** An address field (type="url"), for the browser's check and keyboard. */
  url?: boolean;
  maxLength?: number;
  size?: number;
  invalidBy?: string | undefined;
}) {
  // Preact types each kind of input apart, so a URL field's type comes in its own attribute set.
  const kind: JSX.IntrinsicElements['input'] = props.url ? { type: 'url' } : {};
  return (
    <label>
      {props.label}
      <input
        {...kind}
        value={props.value}
        required
        maxLength={props.maxLength}
        size={props.size}
        aria-invalid={props.invalidBy ? true : undefined}
        aria-describedby={props.invalidBy}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}

/**
 * The dispensaries this key sees (for pickers), one's name by id (undefined when not among them), and
 * its label in a list (the name, or #id when not among them).
 */
export function useDispensaries(): {
  list: DispensarySummary[] | undefined;
  nameOf: (id: number) => string | undefined;
  labelOf: (id: number) => string;
} {
  const dispensaries = useLoad(() => api<DispensarySummary[]>('GET', '/dispensaries'), []);
  const nameOf = (id: number) => dispensaries.data?.find((dispensary) => dispensary.id === id)?.name;
  return { list: dispensaries.data, nameOf, labelOf: (id) => nameOf(id) ?? `#${id}` };
}

export function when(at: string | null | undefined): string {
  return at ? new Date(at).toLocaleString() : '—';
}

/** Loads something once (and again when `reload` is called), with its error. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: string; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState('');
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (live) {
          setData(value);
          setError('');
        }
      },
      (failure: unknown) => {
        if (live) setError(failure instanceof Error ? failure.message : String(failure));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((value) => value + 1) };
}

/**
 * A form that sends one request: `onSubmit` runs `send` with the form busy and the last error
 * cleared, and keeps the error's message when it fails. `initialError` is shown before any submit.
 */
export function useSubmit(send: () => Promise<void>, initialError = '') {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(initialError);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await send();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, onSubmit };
}
