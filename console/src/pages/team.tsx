import { useState } from 'preact/hooks';
import type {
  AccessRequestSummary,
  AccountSummary,
  IntegratorSummary,
  IssuedAccountLink,
} from '../../../src/client/types.js';
import { api } from '../api.js';
import { Confirm, ErrorText, SecretOnce, TextInput, useDispensaries, useLoad, when } from '../components.js';
import { CheckGroup, DangerButton, ListTable, useDeletion } from '../lists.js';
import { asApiError, SecretForm, useSecretForm } from '../secret-form.js';

type Role = AccountSummary['role'];
const ROLES: { value: Role; label: string }[] = [
  { value: 'operator', label: 'Operator (everything)' },
  { value: 'manager', label: 'Manager of its dispensaries' },
  { value: 'staff', label: 'Staff of its dispensaries (menu and stock)' },
];

type DispensaryOptions = { value: number; label: string }[] | undefined;

/** An account's role, and the dispensaries it covers unless it is an operator (who covers all). */
function RoleFields(props: {
  role: Role;
  onRole: (role: Role) => void;
  options: DispensaryOptions;
  chosen: number[];
  onChosen: (chosen: number[]) => void;
}) {
  return (
    <>
      <label>
        Role
        <select value={props.role} onChange={(event) => props.onRole(event.currentTarget.value as Role)}>
          {ROLES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {props.role !== 'operator' && (
        <CheckGroup
          legend="Dispensaries"
          options={props.options}
          chosen={props.chosen}
          onChange={props.onChosen}
        />
      )}
    </>
  );
}

/**
 * The people with accounts (an operator sees all, a manager the staff of its dispensaries): invite,
 * change role and dispensaries, new password link, remove. The same routes as any sync API client's.
 */
export function TeamPage(props: { operator: boolean }) {
  const list = useLoad(() => api<AccountSummary[]>('GET', '/accounts'), []);
  const dispensaries = useDispensaries();
  const options = dispensaries.list?.map((dispensary) => ({ value: dispensary.id, label: dispensary.name }));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('staff');
  const [chosen, setChosen] = useState<number[]>([]);
  const inviting = useSecretForm(
    () =>
      api<IssuedAccountLink>('POST', '/accounts', {
        email,
        role,
        ...(role === 'operator' ? {} : { dispensary_ids: chosen }),
      }),
    () => {
      setEmail('');
      list.reload();
    },
  );
  const [editing, setEditing] = useState<AccountSummary>();
  const [resetLink, setResetLink] = useState<IssuedAccountLink>();
  const [rowError, setRowError] = useState('');
  const removing = useDeletion((account: AccountSummary) => `/accounts/${account.id}`, list.reload);
  const reset = async (account: AccountSummary) => {
    setRowError('');
    try {
      setResetLink(await api<IssuedAccountLink>('POST', `/accounts/${account.id}/reset-password`));
    } catch (failure) {
      setRowError(asApiError(failure).message);
    }
  };
  const linkLabel = (issued: IssuedAccountLink) =>
    `One-time link for ${issued.account.email}${issued.emailed ? ' (also emailed)' : ''}`;
  return (
    <>
      <h1>Team</h1>
      <h2>Invite a person</h2>
      <SecretForm state={inviting} secret={(issued) => ({ label: linkLabel(issued), value: issued.link })}>
        <TextInput label="Email" value={email} onInput={setEmail} maxLength={254} />
        <RoleFields role={role} onRole={setRole} options={options} chosen={chosen} onChosen={setChosen} />
        <button type="submit">Invite</button>
        <ErrorText message={inviting.failure?.message} />
      </SecretForm>
      {resetLink && (
        <SecretOnce
          label={linkLabel(resetLink)}
          value={resetLink.link}
          onDone={() => setResetLink(undefined)}
        />
      )}
      <h2>Accounts</h2>
      <ErrorText message={rowError} />
      <ListTable
        list={list}
        columns={['Email', 'Role', 'Dispensaries', 'Status', 'Created']}
        actions
        row={(account) => (
          <tr key={account.id}>
            <td>{account.email}</td>
            <td>{account.role}</td>
            <td>{account.dispensary_ids.map(dispensaries.labelOf).join(', ') || 'All'}</td>
            <td>{account.active ? 'Active' : 'Invited'}</td>
            <td>{when(account.created_at)}</td>
            <td>
              <button type="button" onClick={() => setEditing(account)}>
                Change <span class="visually-hidden">{account.email}</span>
              </button>
              <button type="button" onClick={() => reset(account)}>
                New password link <span class="visually-hidden">for {account.email}</span>
              </button>
              <DangerButton name={`Remove ${account.email}`} onClick={() => removing.ask(account)}>
                Remove
              </DangerButton>
            </td>
          </tr>
        )}
      />
      {editing && (
        <ChangeAccount
          account={editing}
          options={options}
          onDone={() => {
            setEditing(undefined);
            list.reload();
          }}
        />
      )}
      {removing.target && (
        <Confirm title={`Remove ${removing.target.email}?`} action="Remove account" {...removing.handlers}>
          <p>Their sessions end at once.</p>
        </Confirm>
      )}
      <AccessRequests />
      {props.operator && <Integrators onDecided={list.reload} />}
    </>
  );
}

type Decision = 'approve' | 'decline';

/** Posts a decision on one entry of a list (to `path`), then `after`; the error of the last one that failed. */
function useDecisions<T>(path: (subject: T, decision: Decision) => string, after: () => void) {
  const [error, setError] = useState('');
  const decide = async (subject: T, decision: Decision) => {
    setError('');
    try {
      await api('POST', path(subject, decision));
      after();
    } catch (failure) {
      setError(asApiError(failure).message);
    }
  };
  return { error, decide };
}

/** Approve and Decline for an entry waiting on a decision; `who` names the entry to screen readers. */
function DecisionButtons(props: { who: string; onDecide: (decision: Decision) => void }) {
  return (
    <>
      <button type="button" onClick={() => props.onDecide('approve')}>
        Approve <span class="visually-hidden">{props.who}</span>
      </button>
      <DangerButton name={`Decline ${props.who}`} onClick={() => props.onDecide('decline')}>
        Decline
      </DangerButton>
    </>
  );
}

/**
 * Integrators who registered at /developers (the operator's): approve or decline those waiting. Approval
 * lets them sign in and creates their API credential; `menu-api integrator` does the same.
 */
function Integrators(props: { onDecided: () => void }) {
  const list = useLoad(() => api<IntegratorSummary[]>('GET', '/integrators'), []);
  const { error, decide } = useDecisions<IntegratorSummary>(
    (integrator, decision) => `/integrators/${integrator.id}/${decision}`,
    () => {
      list.reload();
      props.onDecided();
    },
  );
  return (
    <>
      <h2>Integrators</h2>
      <p class="hint">
        Developers register themselves at <a href="/developers">/developers</a> and confirm their email; then
        they wait here for you.
      </p>
      <ErrorText message={error} />
      <ListTable
        list={list}
        columns={['Email', 'Name', 'Company', 'What they build', 'Status', 'Credential']}
        actions
        row={(integrator) => (
          <tr key={integrator.id}>
            <td>{integrator.email}</td>
            <td>{integrator.name}</td>
            <td>{integrator.company}</td>
            <td>{integrator.building}</td>
            <td>{integrator.status}</td>
            <td>{integrator.credential ?? '—'}</td>
            <td>
              {integrator.status === 'waiting' && (
                <DecisionButtons
                  who={integrator.email}
                  onDecide={(decision) => decide(integrator, decision)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </>
  );
}

function ChangeAccount(props: { account: AccountSummary; options: DispensaryOptions; onDone: () => void }) {
  const [role, setRole] = useState<Role>(props.account.role);
  const [chosen, setChosen] = useState<number[]>(props.account.dispensary_ids);
  const [error, setError] = useState('');
  return (
    <form
      aria-label={`Change ${props.account.email}`}
      onSubmit={async (event) => {
        event.preventDefault();
        setError('');
        try {
          await api('PATCH', `/accounts/${props.account.id}`, {
            role,
            dispensary_ids: role === 'operator' ? [] : chosen,
          });
          props.onDone();
        } catch (failure) {
          setError(asApiError(failure).message);
        }
      }}
    >
      <h2>Change {props.account.email}</h2>
      <RoleFields role={role} onRole={setRole} options={props.options} chosen={chosen} onChosen={setChosen} />
      <button type="submit">Save</button>
      <button type="button" onClick={props.onDone}>
        Cancel
      </button>
      <ErrorText message={error} />
    </form>
  );
}

/**
 * Integrators' requests to read the dispensaries this person manages: approving one lets the
 * integrator's credential read that dispensary (and take a token of its own for it, in its portal).
 */
function AccessRequests() {
  const list = useLoad(() => api<AccessRequestSummary[]>('GET', '/access-requests'), []);
  const { error, decide } = useDecisions<AccessRequestSummary>(
    (request, decision) => `/access-requests/${request.id}/${decision}`,
    list.reload,
  );
  return (
    <>
      <h2>Integrators’ access requests</h2>
      <ErrorText message={error} />
      <ListTable
        list={list}
        columns={['Dispensary', 'Integrator', 'Company', 'What they build', 'Status', 'Asked']}
        actions
        row={(request) => (
          <tr key={request.id}>
            <td>{request.dispensary_name}</td>
            <td>{request.email}</td>
            <td>{request.company}</td>
            <td>{request.building}</td>
            <td>{request.status}</td>
            <td>{when(request.created_at)}</td>
            <td>
              {request.status === 'waiting' && (
                <DecisionButtons
                  who={`${request.email} for ${request.dispensary_name}`}
                  onDecide={(decision) => decide(request, decision)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </>
  );
}
