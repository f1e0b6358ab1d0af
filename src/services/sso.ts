import type { Configuration } from 'openid-client';
import { Sealer } from '../auth/sealed.js';
import { safeEqual } from '../auth/secrets.js';
import { type Account, ConflictError, type Store } from '../store/store.js';
import { checkedEmail } from './accounts.js';
import type { ConsoleSessionService, StartedSession } from './console-sessions.js';
import { ServiceError } from './errors.js';

/** The provider, this server's client there, and who may join by single sign-on (docs/accounts.md). */
export interface SsoOptions {
  issuer: string;
  clientId: string;
  /** Never logged, never sent anywhere but the provider's token endpoint; it also keys the flow cookie. */
  clientSecret: string;
  /** People whose verified email is at one of these domains join as staff of no dispensary. */
  allowedDomains: readonly string[];
}

/** What the browser keeps between leaving for the provider and coming back: sealed, in an HttpOnly cookie. */
interface Flow {
  state: string;
  nonce: string;
  verifier: string;
}

/** A sign-in at the provider may take this long (the flow cookie lives as long). */
export const FLOW_LIFETIME_MS = 10 * 60 * 1000;

/** The openid-client library, loaded on the first single sign-on only (a server without it never loads it). */
type OpenIdClient = typeof import('openid-client');

const AGAIN = "Start again from the console's sign-in page.";

/**
 * Why a single sign-on did not sign the person in, for the console's sign-in page to say what happened
 * and what to do next (the browser is sent there: the way back from the provider is a navigation).
 */
export type SsoProblem =
  | 'not_allowed'
  | 'unverified'
  | 'other_identity'
  | 'provider_refused'
  | 'provider_answer'
  | 'expired'
  | 'crossed'
  | 'unavailable';

/** The problems that are the attempt's own, counted as a failed login of the address (not the provider down, not a race). */
const COUNTED: ReadonlySet<SsoProblem> = new Set([
  'not_allowed',
  'unverified',
  'other_identity',
  'provider_refused',
  'provider_answer',
  'expired',
]);

/** A refused single sign-on: the error of its kind (its status and message), and which problem it was. */
export class SsoRefusal extends ServiceError {
  constructor(
    code: ServiceError['code'],
    readonly problem: SsoProblem,
    message: string,
  ) {
    super(code, message);
    this.name = 'SsoRefusal';
  }
}

/**
 * Single sign-on to the console with OpenID Connect: the authorization code flow with PKCE, state and
 * nonce (openid-client). The provider's identity (issuer and subject) is bound to an account at its
 * first sign-in; until then it maps by its verified email to an existing account or a pending
 * invitation, or, for an allowed domain, makes a staff account. Each sign-in is in the audit log as the
 * person's ("signed in with SSO") and starts a session as a password does.
 */
export class SsoService {
  private readonly sealer: Sealer;
  private configuration: Promise<{ client: OpenIdClient; config: Configuration }> | undefined;

  constructor(
    private readonly store: Store,
    private readonly sessions: ConsoleSessionService,
    private readonly options: SsoOptions,
  ) {
    this.sealer = new Sealer(options.clientSecret, 'oidc flow');
  }

  /**
   * Where to send the browser to sign in at the provider, and the sealed flow (state, nonce, PKCE
   * verifier) for the browser to keep in a short-lived HttpOnly cookie until it comes back.
   */
  async start(redirectUri: string, address?: string): Promise<{ url: string; flow: string }> {
    // An address refused at the way back is refused before it goes to the provider at all.
    await this.sessions.refuseThrottled({ address });
    const { client, config } = await this.discovered();
    const flow: Flow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, flow: this.sealer.seal(flow, FLOW_LIFETIME_MS) };
  }

  /**
   * The browser is back from the provider at `callbackUrl` (with the code, or the provider's error) and
   * `sealedFlow` from its cookie: the code is exchanged, the ID token checked, and the person signed in.
   * Refusals count as failed logins of `address` in the login guard, as wrong passwords do; past its
   * limit, the way back is refused (429) before the code is exchanged.
   */
  async finish(
    callbackUrl: URL,
    sealedFlow: string | undefined,
    redirectUri: string,
    address?: string,
  ): Promise<StartedSession> {
    const attempt = { address };
    await this.sessions.refuseThrottled(attempt);
    try {
      return await this.sessions.startForAccount(await this.identify(callbackUrl, sealedFlow, redirectUri));
    } catch (error) {
      if (error instanceof SsoRefusal && COUNTED.has(error.problem)) await this.sessions.failed(attempt);
      throw error;
    }
  }

  /** The account the provider's answer signs in as (recorded), or an SsoRefusal saying why not. */
  private async identify(
    callbackUrl: URL,
    sealedFlow: string | undefined,
    redirectUri: string,
  ): Promise<Account> {
    const flow = sealedFlow === undefined ? undefined : asFlow(this.sealer.open(sealedFlow));
    const state = callbackUrl.searchParams.get('state');
    if (!flow || state === null || !safeEqual(state, flow.state)) {
      throw new SsoRefusal(
        'invalid_request',
        'expired',
        `This sign-in did not come back as it left (its state does not match this browser's, or it took more than ${FLOW_LIFETIME_MS / 60_000} minutes). ${AGAIN}`,
      );
    }
    const refused = callbackUrl.searchParams.get('error');
    if (refused !== null) {
      const why = callbackUrl.searchParams.get('error_description') ?? refused;
      throw new SsoRefusal(
        'invalid_credentials',
        'provider_refused',
        `The sign-in provider refused: ${why.slice(0, 200)}. ${AGAIN}`,
      );
    }
    const { client, config } = await this.discovered();
    // The provider checks the code against this exact address, without the answer's own parameters.
    const current = new URL(redirectUri);
    current.search = callbackUrl.search;
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      if (typeof claims.email !== 'string' && typeof claims.sub === 'string') {
        claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)) };
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SsoRefusal(
        'invalid_credentials',
        'provider_answer',
        `The sign-in provider's answer could not be used (${reason.slice(0, 200)}). ${AGAIN}`,
      );
    }
    return this.accountOf(`${config.serverMetadata().issuer} ${String(claims.sub)}`, claims);
  }

  /** The account this identity signs in as, recorded ("signed in with SSO"); refused with what to do. */
  private async accountOf(identity: string, claims: Record<string, unknown>): Promise<Account> {
    const bound = await this.store.accounts.findBySsoIdentity(identity);
    if (bound) return this.recorded(bound.id, identity);
    if (typeof claims.email !== 'string' || claims.email_verified !== true) {
      throw new SsoRefusal(
        'forbidden',
        'unverified',
        'Your sign-in provider did not say your email address is verified, so it cannot be matched to an account. Verify it there, or ask your operator.',
      );
    }
    const email = checkedEmail(claims.email);
    const found = await this.store.accounts.findByEmail(email);
    if (found) {
      if (found.ssoIdentity !== null) {
        throw new SsoRefusal(
          'forbidden',
          'other_identity',
          `The account ${email} signs in with another single sign-on identity. Ask your operator to remove the account and invite you again.`,
        );
      }
      return this.recorded(found.id, identity);
    }
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (!this.options.allowedDomains.includes(domain)) {
      throw new SsoRefusal(
        'forbidden',
        'not_allowed',
        `There is no account for ${email}, and ${domain} is not a domain allowed to join. Ask your operator for an invitation (npx menu-api account invite --email ${email} --role staff --dispensaries IDS).`,
      );
    }
    try {
      return await this.store.accounts.joinWithSso(email, { role: 'staff', dispensaryIds: [] }, identity);
    } catch (error) {
      if (error instanceof ConflictError)
        throw new SsoRefusal('conflict', 'crossed', `Two sign-ins of ${email} crossed. ${AGAIN}`);
      throw error;
    }
  }

  private async recorded(id: number, identity: string): Promise<Account> {
    const account = await this.store.accounts.signedInWithSso(id, identity);
    if (!account) {
      throw new SsoRefusal('conflict', 'crossed', `The account changed while you signed in. ${AGAIN}`);
    }
    return account;
  }

  /** The provider's metadata, discovered once from the issuer (again after a failure). */
  private discovered(): Promise<{ client: OpenIdClient; config: Configuration }> {
    this.configuration ??= (async () => {
      const client = await import('openid-client');
      const issuer = new URL(this.options.issuer);
      const config = await client.discovery(
        issuer,
        this.options.clientId,
        this.options.clientSecret,
        undefined,
        {
          // Plain http only to a provider on this machine (development and tests).
          ...(issuer.protocol === 'http:' &&
            isLoopback(issuer.hostname) && { execute: [client.allowInsecureRequests] }),
          timeout: 10,
        },
      );
      return { client, config };
    })();
    const found = this.configuration;
    return found.catch((error: unknown) => {
      if (this.configuration === found) this.configuration = undefined;
      const reason = error instanceof Error ? error.message : String(error);
      throw new SsoRefusal(
        'unavailable',
        'unavailable',
        `The single sign-on provider ${this.options.issuer} could not be reached or read (${reason.slice(0, 200)}). Try again shortly, or sign in with your email and password.`,
      );
    });
  }
}

function asFlow(value: unknown): Flow | undefined {
  const flow = value as Partial<Flow> | undefined;
  return flow &&
    typeof flow.state === 'string' &&
    typeof flow.nonce === 'string' &&
    typeof flow.verifier === 'string'
    ? (flow as Flow)
    : undefined;
}

const isLoopback = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
