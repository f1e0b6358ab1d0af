import { useState } from 'preact/hooks';
import type { PasswordChanged, SignedOut } from '../../src/client/types.js';
import { api } from './api.js';
import { Confirm, ErrorText, useSubmit } from './components.js';

/**
 * The Account page's password form: the current password and a new one (POST /account/password). The
 * person's other sessions end; this one stays. A hidden username field lets password managers file the
 * new password under the right account.
 */
export function ChangePassword(props: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState('');
  const change = useSubmit(async () => {
    setDone('');
    const answer = await api<PasswordChanged>('POST', '/account/password', {
      current_password: current,
      new_password: next,
    });
    setCurrent('');
    setNext('');
    const others = answer.ended_sessions;
    setDone(
      `Password changed. ${others === 0 ? 'You were signed in nowhere else.' : `${others} other ${others === 1 ? 'session was' : 'sessions were'} signed out.`}`,
    );
  });
  const invalid = change.error ? { 'aria-invalid': true as const } : {};
  return (
    <form onSubmit={change.onSubmit} aria-labelledby="password-heading">
      <input type="email" autoComplete="username" value={props.email} readOnly hidden />
      <label>
        Current password
        <input
          type="password"
          autoComplete="current-password"
          required
          maxLength={1024}
          value={current}
          {...invalid}
          aria-describedby={change.error ? 'password-error' : undefined}
          onInput={(event) => setCurrent(event.currentTarget.value)}
        />
      </label>
      <label>
        New password
        <input
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          maxLength={200}
          value={next}
          {...invalid}
          aria-describedby={change.error ? 'password-error new-password-hint' : 'new-password-hint'}
          onInput={(event) => setNext(event.currentTarget.value)}
        />
      </label>
      <p id="new-password-hint" class="hint">
        12 to 200 characters; a few words make a good one. Your other sessions are signed out.
      </p>
      <button type="submit" disabled={change.busy}>
        Change password
      </button>
      <ErrorText id="password-error" message={change.error} />
      {done && <p role="status">{done}</p>}
    </form>
  );
}

/** "Sign out everywhere" (DELETE /sessions), after a confirmation: every session of the account ends, this one too. */
export function SignOutEverywhere(props: { onSignedOut: (notice: string) => void }) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <p>
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Sign out everywhere
        </button>
      </p>
      {asking && (
        <Confirm
          title="Sign out everywhere?"
          action="Sign out everywhere"
          onCancel={() => setAsking(false)}
          onConfirm={async () => {
            const answer = await api<SignedOut>('DELETE', '/sessions');
            const count = answer.ended_sessions;
            props.onSignedOut(
              `You are signed out everywhere (${count} ${count === 1 ? 'session' : 'sessions'} ended). Sign in again.`,
            );
          }}
        >
          <p>Every browser and device signed in as you is signed out, this one too.</p>
        </Confirm>
      )}
    </>
  );
}
