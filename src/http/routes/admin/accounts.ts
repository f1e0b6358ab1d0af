import type { FastifyPluginAsync } from 'fastify';
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
import { adminRoutes } from './route.js';

const tags = ['Sync API: accounts'];

/**
 * People's accounts: an operator manages every one, a manager the staff of its own dispensaries
 * (the rule is the account service's; the route needs permission `team`).
 */
export const accountRoutes: FastifyPluginAsync<AdminContext & { consoleUrl?: string }> = async (
  app,
  { services, write, consoleUrl },
) => {
  const { accounts } = services;
  const route = adminRoutes(app, write, tags);
  /** Where links point: the configured console address, else this server as the caller reached it. */
  const linkBase = (request: Parameters<typeof ownOrigin>[0]) => consoleUrl ?? ownOrigin(request);
  const accountOf = (request: { params: { id: string } }) => Number(request.params.id);

  route.write('POST', '/accounts', {
    operationId: 'inviteAccount',
    permission: 'team',
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

  route.read('/accounts', {
    operationId: 'listAccounts',
    permission: 'team',
    summary: 'List the accounts you may manage',
    schema: { response: { 200: Type.Array(AccountOut) } },
    run: async (request) => (await accounts.list(principalOf(request))).map(accountRecord),
  });

  route.write('PATCH', '/accounts/:id', {
    operationId: 'changeAccount',
    permission: 'team',
    summary: 'Change an account’s role or dispensaries',
    schema: { params: AccountParams, body: ChangeAccountBody, response: { 200: AccountOut } },
    run: async (request) => {
      const { role, dispensary_ids: dispensaryIds } = request.body;
      return accountRecord(
        await accounts.change(accountOf(request), { role, dispensaryIds }, principalOf(request)),
      );
    },
  });

  route.write('DELETE', '/accounts/:id', {
    operationId: 'removeAccount',
    permission: 'team',
    summary: 'Remove an account; its sessions end at once',
    schema: { params: AccountParams, response: noContent('Removed.') },
    run: async (request) => {
      await accounts.remove(accountOf(request), principalOf(request));
    },
  });

  route.write('POST', '/accounts/:id/reset-password', {
    operationId: 'resetAccountPassword',
    permission: 'team',
    summary: 'A new one-time link to choose a password (earlier links stop working)',
    secretField: 'link',
    schema: { params: AccountParams, response: { 200: IssuedLinkOut } },
    run: async (request) =>
      issuedLinkRecord(
        await accounts.resetPassword(accountOf(request), principalOf(request), linkBase(request)),
      ),
  });
};
