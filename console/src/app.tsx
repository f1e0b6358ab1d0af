import { useEffect, useState } from 'preact/hooks';
import type { AdminSession, EnrolledSession, PendingSignIn, TotpEnrolment } from '../../src/client/types.js';
import { ApiError, api, useSession } from './api.js';
import { Alert, useSubmit } from './components.js';
import { AccountPage } from './pages/account.js';
import { AdminKeysPage } from './pages/admin-keys.js';
import { AuditPage } from './pages/audit.js';
import { CredentialsPage } from './pages/credentials.js';
import { DispensariesPage } from './pages/dispensaries.js';
import { DispensaryPage, type Tab } from './pages/dispensary.js';
import { LinkPage } from './pages/link.js';
import { PortalPage } from './pages/portal.js';
import { TeamPage } from './pages/team.js';
import { UsagePage } from './pages/usage.js';
import { WebhooksPage } from './pages/webhooks.js';
import { signInWithPasskey } from './passkeys.js';
import { Link, navigate, usePath } from './router.js';
import { SingleSignOn, SsoProblemNotice, takeSsoProblem } from './sso.js';
import { CodeInput, EnrolForm, RecoveryCodesOnce } from './totp.js';

export function App() {
  const [session, setSession] = useState<AdminSession | null | undefined>(undefined);
  const [notice, setNotice] = useState('');
  // A refused single sign-on comes back to the sign-in page, saying why (once).
  const [ssoProblem, setSsoProblem] = useState(takeSsoProblem);
  const signedOut = () => {
    setSession(null);
    setNotice('Your session has ended. Sign in again.');
  };
  useSession(session ?? null, signedOut);
  const path = usePath();
  const onLinkPage = path === '/link';
  useEffect(() => {
    if (onLinkPage) return;
    api<AdminSession>('GET', '/session').then(setSession, () => setSession(null));
  }, []);
  if (onLinkPage)
    return (
      <LinkPage
        onSignedIn={(started) => {
          if ('pending_token' in started) {
            // A second factor is asked for: the sign-in page asks the password again, then the code.
            setSession(null);
            setNotice('Your password is saved. Sign in with it to continue.');
          } else setSession(started);
          navigate('/');
        }}
      />
    );
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null)
    return (
      <SignIn
        notice={notice}
        ssoProblem={ssoProblem}
        onSignedIn={(started) => {
          setNotice('');
          setSsoProblem(undefined);
          setSession(started);
        }}
      />
    );
  return (
    <Shell
      session={session}
      onSignOut={(said = '') => {
        setNotice(said);
        setSession(null);
      }}
    />
  );
}

/** Sign-in: an account's email and password; an admin key (for operators' scripts' keys) behind a link. */
function SignIn(props: {
  notice: string;
  ssoProblem: string | undefined;
  onSignedIn: (session: AdminSession) => void;
}) {
  const [pending, setPending] = useState<PendingSignIn>();
  if (pending)
    return (
      <SecondStep pending={pending} onSignedIn={props.onSignedIn} onRestart={() => setPending(undefined)} />
    );
  return <FirstStep {...props} onPending={setPending} />;
}

/** Email and password (or an admin key), or a passkey alone. */
function FirstStep(props: {
  notice: string;
  ssoProblem: string | undefined;
  onSignedIn: (session: AdminSession) => void;
  onPending: (pending: PendingSignIn) => void;
}) {
  const [withKey, setWithKey] = useState(false);
  const [email, setEmail] = useState('');
  const [secret, setSecret] = useState('');
  const { busy, error, setError, onSubmit } = useSubmit(async () => {
    const answer = await api<AdminSession | PendingSignIn>(
      'POST',
      '/session',
      withKey ? { key: secret } : { email, password: secret },
    );
    setSecret('');
    if ('pending_token' in answer) props.onPending(answer);
    else props.onSignedIn(answer);
  });
  const passkey = useSubmit(async () => {
    props.onSignedIn(await signInWithPasskey());
  });
  const switchTo = (key: boolean) => {
    setWithKey(key);
    setSecret('');
    setError('');
  };
  const described = error ? { 'aria-invalid': true, 'aria-describedby': 'signin-error' } : {};
  return (
    <main class="signin">
      <h1>Menu console</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.ssoProblem !== undefined && <SsoProblemNotice problem={props.ssoProblem} />}
      {!withKey && <SingleSignOn />}
      <form onSubmit={onSubmit}>
        {!withKey && (
          <>
            <label for="email">Email</label>
            <input
              id="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              {...described}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </>
        )}
        <label for="secret">{withKey ? 'Admin key' : 'Password'}</label>
        <input
          id="secret"
          type="password"
          autoComplete={withKey ? 'off' : 'current-password'}
          required
          value={secret}
          {...described}
          onInput={(event) => setSecret(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <Alert id="signin-error" message={error} />
      </form>
      {!withKey && (
        <form onSubmit={passkey.onSubmit}>
          <button type="submit" disabled={passkey.busy}>
            Sign in with a passkey
          </button>
          <Alert message={passkey.error} />
        </form>
      )}
      <p>
        <button type="button" class="link" onClick={() => switchTo(!withKey)}>
          {withKey ? 'Sign in with email and password' : 'Sign in with an admin key'}
        </button>
      </p>
      <p class="hint">
        {withKey
          ? 'Create a key with: menu-api admin-key create --scope all'
          : 'No account yet? Ask your operator for an invitation (menu-api account invite).'}
      </p>
    </main>
  );
}

/** After a right password: the code from the app (or a recovery code), or codes set up first when required. */
function SecondStep(props: {
  pending: PendingSignIn;
  onSignedIn: (session: AdminSession) => void;
  onRestart: () => void;
}) {
  const token = props.pending.pending_token;
  const [code, setCode] = useState('');
  const [enrolment, setEnrolment] = useState<TotpEnrolment>();
  const [enrolled, setEnrolled] = useState<EnrolledSession>();
  const verify = useSubmit(async () => {
    props.onSignedIn(
      await api<AdminSession>('POST', '/session/second-factor', { pending_token: token, code }),
    );
  });
  const start = useSubmit(async () => {
    setEnrolment(await api<TotpEnrolment>('POST', '/session/second-factor/enroll', { pending_token: token }));
  });
  if (enrolled) {
    const { recovery_codes: _codes, ...session } = enrolled;
    return (
      <main class="signin">
        <h1>One-time codes are on</h1>
        <RecoveryCodesOnce codes={enrolled.recovery_codes} onDone={() => props.onSignedIn(session)} />
      </main>
    );
  }
  if (props.pending.second_factor === 'enroll')
    return (
      <main class="signin">
        <h1>Set up one-time codes</h1>
        <p>This console asks every account for a second factor. Set up an authenticator app to continue.</p>
        {enrolment ? (
          <EnrolForm
            enrolment={enrolment}
            onConfirm={async (first) =>
              setEnrolled(
                await api<EnrolledSession>('POST', '/session/second-factor/enroll/confirm', {
                  pending_token: token,
                  code: first,
                }),
              )
            }
          />
        ) : (
          <form onSubmit={start.onSubmit}>
            <button type="submit" disabled={start.busy}>
              Set up one-time codes
            </button>
            <Alert message={start.error} />
          </form>
        )}
      </main>
    );
  return (
    <main class="signin">
      <h1>Enter your code</h1>
      <form onSubmit={verify.onSubmit}>
        <CodeInput value={code} onInput={setCode} />
        <p class="hint">The 6-digit code from your authenticator app, or one of your recovery codes.</p>
        <button type="submit" disabled={verify.busy}>
          Verify
        </button>
        <Alert message={verify.error} />
      </form>
      <p>
        <button type="button" class="link" onClick={props.onRestart}>
          Start again
        </button>
      </p>
    </main>
  );
}

/** The signed-in console; `onSignOut` takes what the sign-in page says next (after signing out everywhere). */
function Shell(props: { session: AdminSession; onSignOut: (notice?: string) => void }) {
  const path = usePath();
  const { admin_key: adminKey, account } = props.session;
  const operator = adminKey?.scope === 'all' || account?.role === 'operator';
  // People's accounts: an operator manages everyone, a manager the staff of its dispensaries.
  const team = operator || account?.role === 'manager';
  // An integrator (registered at /developers) has its portal and its account, nothing else.
  const integrator = account?.role === 'integrator';
  const links: [string, string][] = integrator
    ? [
        ['/', 'Portal'],
        ['/account', 'Account'],
      ]
    : [
        ['/', 'Dispensaries'],
        ...(operator
          ? ([
              ['/credentials', 'Credentials'],
              ['/admin-keys', 'Admin keys'],
            ] as [string, string][])
          : []),
        ...(team ? ([['/team', 'Team']] as [string, string][]) : []),
        ['/webhooks', 'Webhooks'],
        ['/audit', 'Audit log'],
        ...(operator ? ([['/usage', 'Usage']] as [string, string][]) : []),
        ...(account ? ([['/account', 'Account']] as [string, string][]) : []),
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
  let page = integrator ? <PortalPage /> : <DispensariesPage />;
  const dispensary = /^\/dispensaries\/(\d+)(?:\/(menu|store|specials|import|publishing))?$/.exec(path);
  if (integrator) {
    if (section === 'account' && account)
      page = <AccountPage email={account.email} onSignedOut={props.onSignOut} />;
  } else if (dispensary)
    page = <DispensaryPage id={Number(dispensary[1])} tab={(dispensary[2] ?? 'menu') as Tab} />;
  else if (section === 'credentials') page = <CredentialsPage />;
  else if (section === 'admin-keys') page = <AdminKeysPage />;
  else if (section === 'audit') page = <AuditPage />;
  else if (section === 'webhooks') page = <WebhooksPage />;
  else if (section === 'usage') page = <UsagePage />;
  else if (section === 'team') page = <TeamPage operator={operator} />;
  else if (section === 'account' && account)
    page = <AccountPage email={account.email} onSignedOut={props.onSignOut} />;
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
