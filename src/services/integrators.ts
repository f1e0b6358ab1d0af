import { hashPassword, type ScryptCost } from '../auth/password.js';
import { generateSecret, secretDigest } from '../auth/secrets.js';
import type { IntegratorApproval } from '../config/settings.js';
import { covers, type Permission, type Principal, reach, refusal } from '../domain/permissions.js';
import {
  type AccessRequest,
  ConflictError,
  type Integrator,
  type IntegratorProfile,
  type Store,
} from '../store/store.js';
import { checkedEmail, checkedPassword, LINK_LIFETIME_MS, type Mailer } from './accounts.js';
import { ServiceError } from './errors.js';

/** Where the confirmation page is; the secret follows after `#`, so that it never reaches a server log. */
const CONFIRM_PAGE = '/developers/confirm';
const SYSTEM_ACTOR = 'system:integrator-approval';

/** A one-time confirmation link, as issued: whether it went by email, and if not why. */
export interface ConfirmationLink {
  email: string;
  url: string;
  expiresAt: string;
  emailed: boolean;
  emailError?: string;
}

/**
 * What registering answers: the confirmation link, or nothing when the email already had an account
 * (nothing was made or sent; the page says the same).
 */
export type Registration = ConfirmationLink | { email: string; url?: undefined; emailed: false };

/**
 * Integrators who onboard themselves: registration at /developers, the confirmation link, and the
 * operator's approval (the console and `menu-api integrator` both call it), which creates the API
 * credential the request forms read with; then the integrator's portal (its credential's password, its
 * requests to read dispensaries, its own token for each) and the managers' decisions on those requests.
 */
export class IntegratorService {
  constructor(
    private readonly store: Store,
    private readonly options: {
      scryptCost?: ScryptCost;
      mailer?: Mailer;
      approval?: IntegratorApproval;
      /** Runs after a credential is created (the change feed's poll, as the credential service's). */
      afterWrite?: () => Promise<void>;
    } = {},
  ) {}

  /**
   * A new registration, unconfirmed, and its confirmation link (emailed when a mailer is set). An email
   * whose registration was never confirmed is registered again; one that has any other account gets the
   * same answer and nothing else, so that the public form does not tell who has an account.
   */
  async register(input: Record<string, unknown>, siteUrl: string): Promise<Registration> {
    const email = checkedEmail(input.email);
    const profile: IntegratorProfile = {
      name: checkedText(input.name, 'name', 200),
      company: checkedText(input.company, 'company', 200),
      building: checkedText(input.building, 'what you build', 2000),
    };
    const password = checkedPassword(input.password);
    const passwordDigest = await hashPassword(password, this.options.scryptCost);
    const link = newLink(siteUrl);
    try {
      await this.store.integrators.register(email, profile, passwordDigest, link.confirm);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // A registration never confirmed does not keep the address: the new link goes to its owner all
      // the same, and only the owner can use it. Any other account gets nothing.
      const again = { profile, passwordDigest };
      const renewed = await this.store.integrators.renewUnconfirmed(email, link.confirm, again);
      if (!renewed) return { email, emailed: false };
    }
    return this.sendLink(email, profile.name, link);
  }

  /**
   * The operator's fresh confirmation link for a registration not confirmed yet (`menu-api integrator
   * confirm-link`), for the integrator whose email never came: the earlier link stops working. Emailed
   * too when a mailer is set.
   */
  async confirmationLink(ref: IntegratorRef, by: Principal, siteUrl: string): Promise<ConfirmationLink> {
    mustOperate(by);
    const integrator = await this.resolve(ref);
    const link = newLink(siteUrl);
    const renewed =
      integrator.status === 'unconfirmed' &&
      (await this.store.integrators.renewUnconfirmed(integrator.email, link.confirm, undefined, by.actor));
    if (!renewed) {
      throw new ServiceError(
        'conflict',
        `The registration of ${integrator.email} is ${integrator.status}: its email is confirmed already, so it needs no link.`,
      );
    }
    return this.sendLink(integrator.email, integrator.name, link);
  }

  /** Emails a confirmation link when a mailer is set; the link is in the answer either way. */
  private async sendLink(email: string, name: string, link: NewLink): Promise<ConfirmationLink> {
    const { url, confirm } = link;
    const expiresAt = confirm.expiresAt;
    const mailer = this.options.mailer;
    if (!mailer) return { email, url, expiresAt, emailed: false };
    try {
      await mailer.send({
        to: email,
        subject: 'Confirm your email for the dispensary menu API',
        text: [
          `Hello ${name},`,
          '',
          `Open this link to confirm your email (it works once, until ${expiresAt}):`,
          url,
          '',
          'After that, the operator of this server reviews your registration; you will be able to sign in once it is approved.',
        ].join('\n'),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const emailError = `Could not email the link to ${email}: ${reason}`;
      return { email, url, expiresAt, emailed: false, emailError };
    }
    return { email, url, expiresAt, emailed: true };
  }

  /** Uses a confirmation link once; with automatic approval, the integrator is approved at once. */
  async confirm(secret: unknown): Promise<Integrator> {
    const text = typeof secret === 'string' ? secret.trim() : '';
    const confirmed = /^[A-Za-z0-9_-]{20,100}$/.test(text)
      ? await this.store.integrators.confirm(secretDigest(text), new Date().toISOString())
      : undefined;
    if (!confirmed) {
      throw new ServiceError(
        'not_found',
        'This confirmation link is unknown, already used or expired (links work once, for 7 days). Register again at /developers.',
      );
    }
    if (this.options.approval !== 'automatic') return confirmed;
    return this.approveWaiting(confirmed.accountId, SYSTEM_ACTOR);
  }

  /** Every registration, newest decisions included: the operator's. */
  async list(by: Principal): Promise<Integrator[]> {
    mustOperate(by);
    return this.store.integrators.list();
  }

  /** Approves a waiting registration: its API credential is made (reading no dispensary yet). */
  async approve(ref: IntegratorRef, by: Principal): Promise<Integrator> {
    mustOperate(by);
    const integrator = await this.resolve(ref);
    return this.approveWaiting(integrator.accountId, by.actor);
  }

  async decline(ref: IntegratorRef, by: Principal): Promise<Integrator> {
    mustOperate(by);
    const integrator = await this.resolve(ref);
    const declined = await this.store.integrators.decline(integrator.accountId, by.actor);
    if (!declined) throw notWaiting(integrator);
    return declined;
  }

  /** The signed-in integrator's own registration and its requests to read dispensaries. */
  async portal(by: Principal): Promise<{ integrator: Integrator; access: AccessRequest[] }> {
    const accountId = mustBe(by, 'developer');
    const integrator = await this.found(accountId);
    return { integrator, access: await this.store.integrators.accessRequests({ accountId }) };
  }

  /** A new password for the integrator's own credential, shown once (the old one stops working). */
  async rotatePassword(by: Principal): Promise<{ username: string; password: string }> {
    const accountId = mustBe(by, 'developer');
    const password = generateSecret();
    const username = await this.store.integrators.setCredentialPassword(
      accountId,
      await hashPassword(password, this.options.scryptCost),
    );
    if (!username) throw noCredential();
    await this.options.afterWrite?.();
    return { username, password };
  }

  /** The signed-in integrator's own API credential: its username and the dispensaries it reads. */
  async ownCredential(by: Principal): Promise<{ username: string; dispensaryIds: readonly number[] }> {
    const { credentialUsername } = await this.found(mustBe(by, 'developer'));
    const credential =
      credentialUsername === null ? undefined : await this.store.credentials.find(credentialUsername);
    if (!credential || credential.revokedAt !== null) throw noCredential();
    return { username: credential.username, dispensaryIds: credential.dispensaryIds ?? [] };
  }

  /** Asks to read a published dispensary, named as its public page names it (its name, or its slug). */
  async requestAccess(by: Principal, publicName: unknown): Promise<AccessRequest> {
    const accountId = mustBe(by, 'developer');
    const wanted = typeof publicName === 'string' ? publicName.trim().toLowerCase() : '';
    const matches = (await this.store.dispensaries.list()).filter(
      (dispensary) =>
        dispensary.published &&
        wanted !== '' &&
        (dispensary.name.toLowerCase() === wanted || dispensary.slug === wanted),
    );
    if (matches.length !== 1) {
      throw new ServiceError(
        'not_found',
        matches.length === 0
          ? `No published dispensary is called "${String(publicName ?? '').slice(0, 200)}". Use the name on its public menu page, or the last part of its address (/m/NAME).`
          : 'More than one published dispensary has that name: use the last part of its public page’s address (/m/NAME).',
      );
    }
    try {
      return await this.store.integrators.requestAccess(accountId, matches[0]!.id);
    } catch (error) {
      if (error instanceof ConflictError) {
        throw new ServiceError('conflict', `You asked for ${matches[0]!.name} before: see your portal.`);
      }
      throw error;
    }
  }

  /** A token of the integrator's own for a dispensary it may read, shown once (an earlier one stops working). */
  async issueAccessToken(by: Principal, requestId: number): Promise<{ dispensaryId: number; token: string }> {
    const accountId = mustBe(by, 'developer');
    const request = await this.store.integrators.getAccessRequest(requestId);
    if (!request || request.accountId !== accountId) throw accessNotFound(requestId);
    const token = generateSecret();
    if (!(await this.store.integrators.setAccessToken(requestId, secretDigest(token), by.actor))) {
      throw new ServiceError(
        'conflict',
        `Your request for ${request.dispensaryName} is ${request.status}, not approved.`,
      );
    }
    await this.options.afterWrite?.();
    return { dispensaryId: request.dispensaryId, token };
  }

  /** Requests to read the dispensaries `by` manages (an operator: every one). */
  async accessRequests(by: Principal): Promise<AccessRequest[]> {
    mustBe(by, 'integrators');
    return this.store.integrators.accessRequests({ dispensaryIds: reach(by) });
  }

  /**
   * A manager of the dispensary approves a waiting request (the integrator's credential may then read
   * it), or declines one, waiting or approved (an approved one is withdrawn: the credential no longer
   * reads the dispensary, and the integrator's token stops working).
   */
  async decideAccess(
    by: Principal,
    requestId: number,
    decision: 'approved' | 'declined',
  ): Promise<AccessRequest> {
    mustBe(by, 'integrators');
    const request = await this.store.integrators.getAccessRequest(requestId);
    if (!request || !covers(by, request.dispensaryId)) throw accessNotFound(requestId);
    const decided = await this.store.integrators.decideAccess(requestId, decision, by.actor);
    if (!decided) {
      throw new ServiceError(
        'conflict',
        `The request of ${request.email} is ${request.status}, not waiting.`,
      );
    }
    await this.options.afterWrite?.();
    return decided;
  }

  private async approveWaiting(accountId: number, actor: string): Promise<Integrator> {
    // Nobody sees this password: the integrator makes its own in the portal (shown to it once).
    const passwordHash = await hashPassword(generateSecret(), this.options.scryptCost);
    const approved = await this.store.integrators.approve(
      accountId,
      { username: credentialUsername(accountId), passwordHash },
      actor,
    );
    if (!approved) throw notWaiting(await this.found(accountId));
    await this.options.afterWrite?.();
    return approved;
  }

  /** By account id, or by email (the CLI's way). */
  private async resolve(ref: IntegratorRef): Promise<Integrator> {
    if (typeof ref === 'number') return this.found(ref);
    const email = ref.trim().toLowerCase();
    const found = (await this.store.integrators.list()).find((integrator) => integrator.email === email);
    if (!found) throw notFound(ref);
    return found;
  }

  private async found(accountId: number): Promise<Integrator> {
    const integrator = await this.store.integrators.get(accountId);
    if (!integrator) throw notFound(accountId);
    return integrator;
  }
}

/** A one-time confirmation link: its address (the secret after `#`) and what the store keeps of it. */
interface NewLink {
  url: string;
  confirm: { digest: string; expiresAt: string };
}

function newLink(siteUrl: string): NewLink {
  const secret = generateSecret(32);
  const expiresAt = new Date(Date.now() + LINK_LIFETIME_MS).toISOString();
  return {
    url: `${siteUrl.replace(/\/+$/, '')}${CONFIRM_PAGE}#${secret}`,
    confirm: { digest: secretDigest(secret), expiresAt },
  };
}

/** An integrator, by account id or email. */
export type IntegratorRef = number | string;

/** The credential an approved integrator reads with: named after its account, so never taken. */
const credentialUsername = (accountId: number): string => `integrator-${accountId}`;

/** Refuses unless `by` has the permission; the account it acts as, for an integrator's own routes. */
function mustBe(by: Principal, permission: Permission): number {
  const refused = refusal(by, permission);
  if (refused) throw new ServiceError('forbidden', refused);
  if (permission === 'developer' && by.accountId === undefined) {
    throw new ServiceError('forbidden', 'This is an integrator’s own page: sign in as the integrator.');
  }
  return by.accountId ?? 0;
}

function noCredential(): ServiceError {
  return new ServiceError('conflict', 'Your credential is revoked or not made yet: ask the operator.');
}

function accessNotFound(id: number): ServiceError {
  return new ServiceError('not_found', `There is no access request ${id} that you may see.`);
}

function mustOperate(by: Principal): void {
  const refused = refusal(by, 'operator');
  if (refused) throw new ServiceError('forbidden', refused);
}

function checkedText(value: unknown, field: string, max: number): string {
  const text = typeof value === 'string' ? value.trim() : '';
  // Control characters (NUL among them) have no place in a name, and would garble the console's lists;
  // tabs and line breaks are fine in what it builds.
  const control = [...text].some((character) => {
    const code = character.charCodeAt(0);
    return (code < 32 && character !== '\t' && character !== '\n' && character !== '\r') || code === 127;
  });
  if (text.length === 0 || text.length > max || control) {
    throw new ServiceError('invalid_request', `Give your ${field}: 1 to ${max} characters.`, [
      { field, message: `1 to ${max} characters` },
    ]);
  }
  return text;
}

function notFound(ref: IntegratorRef): ServiceError {
  return new ServiceError(
    'not_found',
    `There is no integrator ${ref}. List them with: npx menu-api integrator list`,
  );
}

function notWaiting(integrator: Integrator): ServiceError {
  return new ServiceError(
    'conflict',
    `The registration of ${integrator.email} is ${integrator.status}, not waiting for a decision.`,
  );
}
