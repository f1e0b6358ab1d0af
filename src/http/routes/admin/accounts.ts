import { Type } from 'typebox';
import { accountRecord, issuedLinkRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import {
  AccountOut,
  AccountParams,
  ChangeAccountBody,
  InviteBody,
  IssuedLinkOut,
} from './accounts.schemas.js';
import { ownOrigin, principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import { adminPlugin } from './route.js';

const tags = ['Sync API: accounts'];

/** Invitations and password resets answer links to the console: at --public-url when it is given. */
type Linking = AdminContext & { consoleUrl?: string };

/**
 * People's accounts: an operator manages every one, a manager the staff of its own dispensaries
 * (the rule is the account service's; the route needs permission `team`).
 */
export const accountRoutes = adminPlugin<Linking>(tags, (needs, { accounts }, { consoleUrl }) => {
  /** Where links point: the configured console address, else this server as the caller reached it. */
  const linkBase = (request: Parameters<typeof ownOrigin>[0]) => consoleUrl ?? ownOrigin(request);
  const accountOf = (request: { params: { id: string } }) => Number(request.params.id);

  needs('team').write('POST', '/accounts', {
    operationId: 'inviteAccount',
    summary: 'Invite a person: a new account and its one-time link (shown once; emailed with --smtp-url)',
    secretField: 'link',
    schema: { body: InviteBody, response: { 201: IssuedLinkOut } },
    run: async (request) => {
      const { email, role, dispensary_ids: dispensaryIds } = request.body;
      return issuedLinkRecord(
        await accounts.invite({ email, role, dispensaryIds }, principalOf(request), linkBase(request)),
      );
    },
  });

  needs('team').read('/accounts', {
    operationId: 'listAccounts',
    summary: 'List the accounts you may manage',
    schema: { response: { 200: Type.Array(AccountOut) } },
    run: async (request) => (await accounts.list(principalOf(request))).map(accountRecord),
  });

  needs('team').write('PATCH', '/accounts/:id', {
    operationId: 'changeAccount',
    summary: 'Change an account’s role or dispensaries',
    schema: { params: AccountParams, body: ChangeAccountBody, response: { 200: AccountOut } },
    run: async (request) => {
      const { role, dispensary_ids: dispensaryIds } = request.body;
      return accountRecord(
        await accounts.change(accountOf(request), { role, dispensaryIds }, principalOf(request)),
      );
    },
  });

  needs('team').write('DELETE', '/accounts/:id', {
    operationId: 'removeAccount',
    summary: 'Remove an account; its sessions end at once',
    schema: { params: AccountParams, response: noContent('Removed.') },
    run: (request) => accounts.remove(accountOf(request), principalOf(request)),
  });

  needs('team').write('POST', '/accounts/:id/reset-password', {
    operationId: 'resetAccountPassword',
    summary: 'A new one-time link to choose a password (earlier links stop working)',
    secretField: 'link',
    schema: { params: AccountParams, response: { 200: IssuedLinkOut } },
    run: async (request) =>
      issuedLinkRecord(
        await accounts.resetPassword(accountOf(request), principalOf(request), linkBase(request)),
      ),
  });
});
