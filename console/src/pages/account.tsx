import { useState } from 'preact/hooks';
import type { PasskeySummary, RecoveryCodes, TotpEnrolment, TotpStatus } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Confirm, ErrorText, TextInput, useLoad, useSubmit, when } from '../components.js';
import { DangerButton, ListTable, useDeletion } from '../lists.js';
import { ChangePassword, SignOutEverywhere } from '../own-sign-in.js';
import { registerPasskey } from '../passkeys.js';
import { CodeInput, EnrolForm, RecoveryCodesOnce } from '../totp.js';

/**
 * The signed-in person's own account: the password (changed with the current one), passkeys to sign in
 * with (registered here, in this browser's authenticator, listed and removed), one-time codes, and
 * signing out everywhere. The same routes as any sync API client's.
 */
export function AccountPage(props: { email: string; onSignedOut: (notice: string) => void }) {
  const list = useLoad(() => api<PasskeySummary[]>('GET', '/account/passkeys'), []);
  const [name, setName] = useState('');
  const [added, setAdded] = useState('');
  const adding = useSubmit(async () => {
    setAdded('');
    const passkey = await registerPasskey(name);
    setName('');
    setAdded(`Passkey "${passkey.name}" added. You can sign in with it alone.`);
    list.reload();
  });
  const removing = useDeletion((passkey: PasskeySummary) => `/account/passkeys/${passkey.id}`, list.reload);
  return (
    <>
      <h1>Account</h1>
      <p>Signed in as {props.email}.</p>
      <h2 id="password-heading">Password</h2>
      <ChangePassword email={props.email} />
      <h2>Passkeys</h2>
      <p class="hint">
        A passkey signs you in without a password: your device (or security key) keeps it and asks for your
        fingerprint, face or PIN.
      </p>
      <form onSubmit={adding.onSubmit}>
        <TextInput label="Passkey name" value={name} onInput={setName} maxLength={64} />
        <button type="submit" disabled={adding.busy}>
          Add a passkey
        </button>
        <ErrorText message={adding.error} />
      </form>
      {added && <p role="status">{added}</p>}
      <ListTable
        list={list}
        caption="Your passkeys"
        columns={['Name', 'Added', 'Last used']}
        actions
        row={(passkey) => (
          <tr key={passkey.id}>
            <td>{passkey.name}</td>
            <td>{when(passkey.created_at)}</td>
            <td>{when(passkey.last_used_at)}</td>
            <td>
              <DangerButton name={`Remove passkey ${passkey.name}`} onClick={() => removing.ask(passkey)}>
                Remove
              </DangerButton>
            </td>
          </tr>
        )}
      />
      <OneTimeCodes />
      <h2>Sessions</h2>
      <p class="hint">Signed in on a shared or lost device? End every session of your account.</p>
      <SignOutEverywhere onSignedOut={props.onSignedOut} />
      {removing.target && (
        <Confirm
          title={`Remove passkey ${removing.target.name}?`}
          action="Remove passkey"
          {...removing.handlers}
        >
          <p>It signs nobody in any more. Remove it from your device too.</p>
        </Confirm>
      )}
    </>
  );
}

/** One-time codes (TOTP) as a second factor: set up with an app and a first code, or turned off with a code. */
function OneTimeCodes() {
  const status = useLoad(() => api<TotpStatus>('GET', '/account/totp'), []);
  const [enrolment, setEnrolment] = useState<TotpEnrolment>();
  const [codes, setCodes] = useState<string[]>();
  const [code, setCode] = useState('');
  const start = useSubmit(async () => setEnrolment(await api<TotpEnrolment>('POST', '/account/totp')));
  const turnOff = useSubmit(async () => {
    await api('POST', '/account/totp/disable', { code });
    setCode('');
    status.reload();
  });
  const enabled = status.data?.enabled;
  return (
    <>
      <h2>One-time codes</h2>
      <p class="hint">
        With one-time codes on, signing in with your password also asks for the 6-digit code from an
        authenticator app.
        {status.data?.required && ' This console requires a second factor (a passkey or one-time codes).'}
      </p>
      {codes ? (
        <RecoveryCodesOnce
          codes={codes}
          onDone={() => {
            setCodes(undefined);
            status.reload();
          }}
        />
      ) : enrolment ? (
        <EnrolForm
          enrolment={enrolment}
          onConfirm={async (first) => {
            const answer = await api<RecoveryCodes>('POST', '/account/totp/confirm', { code: first });
            setEnrolment(undefined);
            setCodes(answer.recovery_codes);
          }}
        />
      ) : enabled ? (
        <form onSubmit={turnOff.onSubmit}>
          <p>On. Recovery codes left: {status.data?.recovery_codes_left}.</p>
          <CodeInput label="Code to turn off" value={code} onInput={setCode} />
          <button type="submit" disabled={turnOff.busy}>
            Turn off one-time codes
          </button>
          <ErrorText message={turnOff.error} />
        </form>
      ) : (
        <form onSubmit={start.onSubmit}>
          <button type="submit" disabled={start.busy || status.data === undefined}>
            Set up one-time codes
          </button>
          <ErrorText message={start.error} />
        </form>
      )}
    </>
  );
}
