import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Principal } from '../domain/permissions.js';
import { type Account, ConflictError, type Passkey, type Store } from '../store/store.js';
import type { ConsoleSessionService, StartedSession } from './console-sessions.js';
import { ServiceError } from './errors.js';
import { ownAccount } from './own-account.js';

/** A challenge works this long: the browser's own prompt times out at the same moment. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
const RP_NAME = 'Dispensary menu console';
const NAME_MAX = 64;

/**
 * @simplewebauthn/server (with @peculiar/x509 and its ASN.1 schemas) is loaded on the first passkey
 * ceremony, never at start: a server nobody signs in to with a passkey does not carry it, and its
 * module-level objects would otherwise live in the old generation of every process.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => {
  library ??= import('@simplewebauthn/server');
  return library;
};

/** Where the console is, as the browser sees it: the relying party of every passkey. */
export interface RelyingParty {
  /** The console's origin, e.g. https://menu.example.com (scheme, host and port). */
  origin: string;
}

const rpId = (rp: RelyingParty) => new URL(rp.origin).hostname;

/**
 * Passkeys (WebAuthn) of people's accounts: registered from a signed-in session, listed and removed by
 * their owner, and enough to sign in alone (a discoverable credential that verified its user). Each
 * ceremony's challenge is stored, taken once, and expires; only public keys are stored.
 */
export class PasskeyService {
  constructor(
    private readonly store: Store,
    private readonly sessions: ConsoleSessionService,
  ) {}

  /** The options for the browser's `navigator.credentials.create`, for the signed-in account. */
  async registrationOptions(
    by: Principal,
    rp: RelyingParty,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const account = await this.ownAccount(by);
    const existing = await this.store.passkeys.list(account.id);
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rpId(rp),
      userName: account.email,
      userDisplayName: account.email,
      // A stable handle that is not the email: the authenticator keeps it with the credential.
      userID: new TextEncoder().encode(`account:${account.id}`),
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports,
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: CHALLENGE_LIFETIME_MS,
    });
    await this.store.passkeys.saveChallenge(
      options.challenge,
      { purpose: 'register', accountId: account.id },
      expiry(),
    );
    return options;
  }

  /** Verifies the browser's answer to `registrationOptions` and stores the passkey's public key. */
  async register(response: unknown, name: unknown, by: Principal, rp: RelyingParty): Promise<Passkey> {
    const account = await this.ownAccount(by);
    const label = checkedName(name);
    const answer = response as RegistrationResponseJSON;
    const challenge = challengeOf(answer);
    const ceremony = challenge
      ? await this.store.passkeys.takeChallenge(challenge, new Date().toISOString())
      : undefined;
    if (!challenge || !ceremony || ceremony.purpose !== 'register' || ceremony.accountId !== account.id) {
      throw challengeGone();
    }
    const { verifyRegistrationResponse } = await webauthn();
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: answer,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rpId(rp),
        requireUserVerification: true,
      });
    } catch (error) {
      throw notVerified(error);
    }
    if (!verified.verified) throw notVerified();
    const { credential } = verified.registrationInfo;
    try {
      return await this.store.passkeys.add(
        account.id,
        {
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          signCount: credential.counter,
          transports: credential.transports ?? [],
          name: label,
        },
        by.actor,
      );
    } catch (error) {
      if (error instanceof ConflictError) {
        throw new ServiceError('conflict', 'This passkey is already registered.');
      }
      throw error;
    }
  }

  async list(by: Principal): Promise<Passkey[]> {
    return this.store.passkeys.list((await this.ownAccount(by)).id);
  }

  async remove(id: number, by: Principal): Promise<void> {
    const account = await this.ownAccount(by);
    if (!(await this.store.passkeys.remove(account.id, id, by.actor))) {
      throw new ServiceError('not_found', `You have no passkey ${id}. The account page lists yours.`);
    }
  }

  /** The options for `navigator.credentials.get`: any passkey of this console may answer. */
  async signInOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: rpId(rp),
      userVerification: 'required',
      timeout: CHALLENGE_LIFETIME_MS,
    });
    await this.store.passkeys.saveChallenge(options.challenge, { purpose: 'sign_in' }, expiry());
    return options;
  }

  /**
   * Signs in with a passkey alone: the challenge is taken once, the signature checked against the
   * stored public key, and a new session started. Failures count in the login guard per address.
   */
  async signIn(response: unknown, rp: RelyingParty, address?: string): Promise<StartedSession> {
    await this.sessions.refuseThrottled({ address });
    const answer = response as AuthenticationResponseJSON;
    const challenge = challengeOf(answer);
    const at = new Date().toISOString();
    const ceremony = challenge ? await this.store.passkeys.takeChallenge(challenge, at) : undefined;
    const passkey =
      typeof answer?.id === 'string' ? await this.store.passkeys.findByCredentialId(answer.id) : undefined;
    const account = passkey && (await this.store.accounts.get(passkey.accountId));
    let newCounter: number | undefined;
    if (challenge && ceremony?.purpose === 'sign_in' && passkey && account?.active) {
      const { verifyAuthenticationResponse } = await webauthn();
      try {
        const verified = await verifyAuthenticationResponse({
          response: answer,
          expectedChallenge: challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rpId(rp),
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
            counter: passkey.signCount,
            transports: passkey.transports as never,
          },
          requireUserVerification: true,
        });
        if (verified.verified) newCounter = verified.authenticationInfo.newCounter;
      } catch {
        // A malformed or forged answer is a failed sign-in like any other (below).
      }
    }
    if (!passkey || !account || newCounter === undefined) {
      await this.sessions.failed({ address });
      throw new ServiceError(
        'invalid_credentials',
        'That passkey could not sign you in (unknown, removed, or the request expired). Try again, or sign in with your email and password.',
      );
    }
    await this.store.passkeys.used(passkey.id, newCounter, at);
    return this.sessions.startForAccount(account);
  }

  /** Passkeys belong to people: an admin key's session has none. */
  private ownAccount(by: Principal): Promise<Account> {
    return ownAccount(this.store, by, 'Passkeys belong to accounts');
  }
}

function expiry(): string {
  return new Date(Date.now() + CHALLENGE_LIFETIME_MS).toISOString();
}

/** The challenge the browser signed, from the answer's client data (checked again by the library). */
function challengeOf(answer: { response?: { clientDataJSON?: unknown } } | undefined): string | undefined {
  const data = answer?.response?.clientDataJSON;
  if (typeof data !== 'string' || data.length > 4096) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' && parsed.challenge.length <= 128
      ? parsed.challenge
      : undefined;
  } catch {
    return undefined;
  }
}

function checkedName(name: unknown): string {
  const given = typeof name === 'string' ? name.trim() : '';
  if (given === '' || given.length > NAME_MAX) {
    throw new ServiceError(
      'invalid_request',
      `Name the passkey (1 to ${NAME_MAX} characters), for example "Work laptop", to tell it from others later.`,
    );
  }
  return given;
}

function challengeGone(): ServiceError {
  return new ServiceError(
    'invalid_request',
    'This passkey request is unknown, already used or expired (it works once, for 5 minutes). Start again from the account page.',
  );
}

function notVerified(error?: unknown): ServiceError {
  const reason = error instanceof Error ? ` (${error.message})` : '';
  return new ServiceError(
    'invalid_request',
    `The browser's answer could not be verified${reason}. Start again from the account page.`,
  );
}
