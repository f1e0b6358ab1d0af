import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/** The client the server under test is at the provider. */
export const OIDC_CLIENT = { id: 'menu-console', secret: 'a-test-client-secret-of-some-length-0123456789' };

/**
 * A real OpenID provider (panva's oidc-provider) on a loopback port, for single sign-on tests. Its own
 * development login page (devInteractions) signs in whoever types a login, with any password: the login
 * is the subject, and the email too, verified, unless it starts with `unverified:`. Consent is given
 * for the one client at once (a first-party client), so a sign-in is one form.
 *
 * The port is taken first and the provider made later (`register`), when the address of the server
 * under test, whose callback the client registers, is known.
 */
export async function loopbackProvider(): Promise<{
  issuer: string;
  /** Serves the provider, with a client whose only redirect URI is `redirectUri`. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}> {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    if (handler) handler(request, response);
    else response.writeHead(503).end('not registered yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: OIDC_CLIENT.id,
            client_secret: OIDC_CLIENT.secret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        cookies: { keys: ['oidc-provider test cookie key'] },
        pkce: { required: () => true },
        // Short lives of its own, so that it does not print a notice about each default.
        ttl: {
          AccessToken: 600,
          AuthorizationCode: 60,
          Grant: 3600,
          IdToken: 600,
          Interaction: 600,
          Session: 3600,
        },
        features: { devInteractions: { enabled: true } },
        findAccount: (_ctx: KoaContextWithOIDC, id: string) => ({
          accountId: id,
          claims: () => {
            const unverified = id.startsWith('unverified:');
            const email = unverified ? id.slice('unverified:'.length) : id;
            return { sub: id, email, email_verified: !unverified };
          },
        }),
        // A first-party client: its scopes are granted without a consent page.
        loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
          const { oidc } = ctx;
          if (!oidc.client || !oidc.session?.accountId) return undefined;
          const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
          if (grantId) return oidc.provider.Grant.find(grantId);
          const grant = new oidc.provider.Grant({
            clientId: oidc.client.clientId,
            accountId: oidc.session.accountId,
          });
          grant.addOIDCScope('openid email');
          await grant.save();
          return grant;
        },
      });
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
