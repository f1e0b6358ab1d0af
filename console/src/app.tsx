import { useEffect, useState } from 'preact/hooks';
import type { AdminSession } from '../../src/client/types.js';
import { ApiError, api, messageOf, useSession } from './api.js';
import { Alert } from './components.js';
import { AdminKeysPage } from './pages/admin-keys.js';
import { AuditPage } from './pages/audit.js';
import { CredentialsPage } from './pages/credentials.js';
import { DispensariesPage } from './pages/dispensaries.js';
import { DispensaryPage, type Tab } from './pages/dispensary.js';
import { UsagePage } from './pages/usage.js';
import { WebhooksPage } from './pages/webhooks.js';
import { Link, usePath } from './router.js';

export function App() {
  const [session, setSession] = useState<AdminSession | null | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const signedOut = () => {
    setSession(null);
    setNotice('Your session has ended. Sign in again.');
  };
  useSession(session ?? null, signedOut);
  useEffect(() => {
    api<AdminSession>('GET', '/session').then(setSession, () => setSession(null));
  }, []);
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null)
    return (
      <SignIn
        notice={notice}
        onSignedIn={(started) => {
          setNotice('');
          setSession(started);
        }}
      />
    );
  return <Shell session={session} onSignOut={() => setSession(null)} />;
}

function SignIn(props: { notice: string; onSignedIn: (session: AdminSession) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>Menu console</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError('');
          try {
            const session = await api<AdminSession>('POST', '/session', { key });
            setKey('');
            props.onSignedIn(session);
          } catch (failure) {
            setError(messageOf(failure));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="admin-key">Admin key</label>
        <input
          id="admin-key"
          type="password"
          autoComplete="off"
          required
          value={key}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'signin-error' : undefined}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <Alert id="signin-error" message={error} />
      </form>
      <p class="hint">Create a key with: menu-api admin-key create --scope all</p>
    </main>
  );
}

function Shell(props: { session: AdminSession; onSignOut: () => void }) {
  const path = usePath();
  const { admin_key: adminKey, account } = props.session;
  const operator = adminKey?.scope === 'all' || account?.role === 'operator';
  const links: [string, string][] = [
    ['/', 'Dispensaries'],
    ...(operator
      ? ([
          ['/credentials', 'Credentials'],
          ['/admin-keys', 'Admin keys'],
        ] as [string, string][])
      : []),
    ['/webhooks', 'Webhooks'],
    ['/audit', 'Audit log'],
    ...(operator ? ([['/usage', 'Usage']] as [string, string][]) : []),
  ];
  const section = path.split('/')[1] ?? '';
  const signOut = async () => {
    try {
      await api('DELETE', '/session');
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
    }
    props.onSignOut();
  };
  let page = <DispensariesPage />;
  const dispensary = /^\/dispensaries\/(\d+)(?:\/(menu|store|import|publishing))?$/.exec(path);
  if (dispensary) page = <DispensaryPage id={Number(dispensary[1])} tab={(dispensary[2] ?? 'menu') as Tab} />;
  else if (section === 'credentials') page = <CredentialsPage />;
  else if (section === 'admin-keys') page = <AdminKeysPage />;
  else if (section === 'audit') page = <AuditPage />;
  else if (section === 'webhooks') page = <WebhooksPage />;
  else if (section === 'usage') page = <UsagePage />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Menu console</span>
        <nav aria-label="Main">
          <ul>
            {links.map(([to, label]) => (
              <li key={to}>
                <Link
                  to={to}
                  current={to === '/' ? section === '' || section === 'dispensaries' : `/${section}` === to}
                >
                  {label}
                </Link>
              </li>
            ))}
            <li>
              <button type="button" class="link" onClick={signOut}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
        <span class="who">
          {account ? `${account.email} (${account.role})` : `${adminKey?.name} (${adminKey?.scope})`}
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
