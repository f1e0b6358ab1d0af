import { useState } from 'preact/hooks';
import type { TotpEnrolment } from '../../src/client/types.js';
import { CopyField, ErrorText } from './components.js';

/** The code field of a second-factor form: six digits from the app, or a recovery code. */
export function CodeInput(props: { value: string; onInput: (value: string) => void; label?: string }) {
  return (
    <label>
      {props.label ?? 'Code'}
      <input
        value={props.value}
        required
        autoComplete="one-time-code"
        maxLength={40}
        size={14}
        class="mono"
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}

/**
 * Setting one-time codes up: the secret (shown once, as an otpauth:// link and as text for typing into
 * the app) and the first code that turns them on.
 */
export function EnrolForm(props: { enrolment: TotpEnrolment; onConfirm: (code: string) => Promise<void> }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      aria-label="Set up one-time codes"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError('');
        try {
          await props.onConfirm(code);
        } catch (failure) {
          setError(failure instanceof Error ? failure.message : String(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      <p>
        Add this account to your authenticator app: open the link on the device that has the app, or type the
        secret into it. Shown once.
      </p>
      <CopyField label="Secret" value={props.enrolment.secret} />
      <CopyField label="Setup link (otpauth)" value={props.enrolment.otpauth_uri} lines={2} />
      <CodeInput label="Code from your app" value={code} onInput={setCode} />
      <button type="submit" disabled={busy}>
        Turn on
      </button>
      <ErrorText message={error} />
    </form>
  );
}

/** The ten recovery codes, shown once. */
export function RecoveryCodesOnce(props: { codes: string[]; onDone: () => void }) {
  return (
    <section class="secret" aria-label="Recovery codes">
      <p>
        <strong>Recovery codes</strong> — shown once: keep them somewhere safe. Each signs you in once instead
        of a code, if you lose your app.
      </p>
      <CopyField label="Recovery codes" value={props.codes.join('\n')} lines={5} />
      <button type="button" onClick={props.onDone}>
        Done
      </button>
    </section>
  );
}
