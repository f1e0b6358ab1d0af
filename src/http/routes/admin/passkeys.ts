import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { PasskeyService, RelyingParty } from '../../../services/passkeys.js';
import type { Passkey } from '../../../store/store.js';
import { noContent } from '../../pipeline/error-responses.js';
import { ownOrigin, principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import { CreationOptionsOut, PasskeyOut, PasskeyParams, RegisterPasskeyBody } from './passkeys.schemas.js';
import { adminPlugin } from './route.js';

const tags = ['Sync API: your account'];

/** Passkey routes need the service, and the console's address (--public-url) their relying party is. */
export type WithPasskeys = AdminContext & { passkeys: PasskeyService; consoleUrl?: string };

/** The relying party: the configured console address, else this server as the browser reached it. */
export function relyingParty(request: FastifyRequest, consoleUrl: string | undefined): RelyingParty {
  return { origin: consoleUrl === undefined ? ownOrigin(request) : new URL(consoleUrl).origin };
}

export const passkeyRecord = (passkey: Passkey) => ({
  id: passkey.id,
  name: passkey.name,
  created_at: passkey.createdAt,
  last_used_at: passkey.lastUsedAt,
});

/** The signed-in person's own passkeys: every role manages its own, and nobody anyone else's. */
export const passkeyRoutes = adminPlugin<WithPasskeys>(tags, (needs, _services, { passkeys, consoleUrl }) => {
  needs('own_account').read('/account/passkeys', {
    operationId: 'listPasskeys',
    summary: 'Your passkeys',
    schema: { response: { 200: Type.Array(PasskeyOut) } },
    run: async (request) => (await passkeys.list(principalOf(request))).map(passkeyRecord),
  });

  needs('own_account').write('POST', '/account/passkeys/options', {
    operationId: 'passkeyCreationOptions',
    summary: 'Start registering a passkey: the options for navigator.credentials.create',
    description: 'For an account’s session only. The challenge works once, for 5 minutes.',
    schema: { response: { 200: CreationOptionsOut } },
    run: (request) => passkeys.registrationOptions(principalOf(request), relyingParty(request, consoleUrl)),
  });

  needs('own_account').write('POST', '/account/passkeys', {
    operationId: 'registerPasskey',
    summary: 'Register a passkey: the browser’s answer to the creation options',
    description: 'Only the public key is stored. The audit log names the person and the passkey’s name.',
    schema: { body: RegisterPasskeyBody, response: { 201: PasskeyOut } },
    run: async (request) =>
      passkeyRecord(
        await passkeys.register(
          request.body.response,
          request.body.name,
          principalOf(request),
          relyingParty(request, consoleUrl),
        ),
      ),
  });

  needs('own_account').write('DELETE', '/account/passkeys/:id', {
    operationId: 'removePasskey',
    summary: 'Remove one of your passkeys: it signs nobody in any more',
    schema: { params: PasskeyParams, response: noContent('Removed.') },
    run: (request) => passkeys.remove(Number(request.params.id), principalOf(request)),
  });
});
