import { useEffect, useState } from 'preact/hooks';
import type { AccountLinkInfo, AdminSession, PendingSignIn } from '../../../src/client/types.js';
import { api, messageOf } from '../api.js';
import { Alert, useSubmit } from '../components.js';

/** What the link page read from the address: the secret after #, taken off the address at once. */
function takeLinkToken(): string {
  const token = location.hash.slice(1);
  if (token !== '') history.replaceState(null, '', location.pathname);
  return token;
}

/**
 * /console/link#SECRET, the one-time link of an invitation or a password reset: the person chooses a
 * password and is signed in. The secret never leaves the page but in a POST body.
 */
export function LinkPage(props: { onSignedIn: (session: AdminSession | PendingSignIn) => void }) {
  const [token] = useState(takeLinkToken);
  const [info, setInfo] = useState<AccountLinkInfo>();
  const [password, setPassword] = useState('');
  const { busy, error, setError, onSubmit } = useSubmit(
    async () =>
      props.onSignedIn(
        await api<AdminSession | PendingSignIn>('POST', '/account-link/accept', { token, password }),
      ),
    token === '' ? 'This address has no link in it. Open the whole link you were sent.' : '',
  );
  useEffect(() => {
    if (token === '') return;
    api<AccountLinkInfo>('POST', '/account-link', { token }).then(setInfo, (failure) =>
      setError(messageOf(failure)),
    );
  }, [token]);
  return (
    <main class="signin">
      <h1>{info?.purpose === 'reset' ? 'Choose a new password' : 'Choose your password'}</h1>
      {info && <p>For {info.email}. Then you are signed in.</p>}
      {info && (
        <form onSubmit={onSubmit}>
          <label for="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            maxLength={200}
            value={password}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'link-error' : 'password-hint'}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
          <p id="password-hint" class="hint">
            12 to 200 characters; a few words make a good one.
          </p>
          <button type="submit" disabled={busy}>
            Save password and sign in
          </button>
        </form>
      )}
      <Alert id="link-error" message={error} />
    </main>
  );
}
