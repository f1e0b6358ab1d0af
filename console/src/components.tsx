import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** A secret shown once (a token, a password, an admin key), with a Copy button. */
export function SecretOnce(props: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied(true);
    } catch {
      field.current?.select();
      document.execCommand('copy');
      setCopied(true);
    }
  };
  return (
    <section class="secret" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong> — shown once: copy it now, it cannot be shown again.
      </p>
      <div class="row">
        <input ref={field} readOnly value={props.value} aria-label={props.label} class="mono" size={48} />
        <button type="button" onClick={copy}>
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
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
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

export function ErrorText(props: { id?: string; message?: string | undefined }) {
  return props.message ? (
    <span id={props.id} class="error" role="alert">
      {props.message}
    </span>
  ) : null;
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
