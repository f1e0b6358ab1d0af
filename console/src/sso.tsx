import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

/** GET /admin/v1/session/sso: whether the server signs people in with OpenID Connect. */
interface SingleSignOnInfo {
  configured: boolean;
  sign_in_url?: string;
}

/**
 * "Sign in with single sign-on", shown only when the server says it is configured. A plain link: the
 * browser goes to the provider and comes back signed in (the server keeps the flow in an HttpOnly
 * cookie; the page keeps nothing).
 */
export function SingleSignOn() {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    api<SingleSignOnInfo>('GET', '/session/sso').then(
      (info) => setUrl(info.configured ? info.sign_in_url : undefined),
      // An older server or none configured: no button, and the other ways stay.
      () => setUrl(undefined),
    );
  }, []);
  if (!url) return null;
  return (
    <p class="sso">
      <a class="button" href={url}>
        Sign in with single sign-on
      </a>
    </p>
  );
}

/** What each problem the server names (`?sso_problem=`, src/services/sso.ts) means, and what to do next. */
const PROBLEMS: Record<string, { happened: string; next: string }> = {
  not_allowed: {
    happened:
      'Your sign-in provider knows you, but there is no account here for your email address, and its domain is not one allowed to join.',
    next: 'Ask your operator or manager for an invitation, then sign in again.',
  },
  unverified: {
    happened:
      'Your sign-in provider did not say your email address is verified, so it could not be matched to an account.',
    next: 'Verify your email address with your sign-in provider, or ask your operator.',
  },
  other_identity: {
    happened: 'Your account here signs in with another single sign-on identity.',
    next: 'Sign in with the identity you used before, or ask your operator to remove the account and invite you again.',
  },
  provider_refused: {
    happened: 'Your sign-in provider did not sign you in (perhaps the sign-in was cancelled there).',
    next: 'Try single sign-on again, or sign in with your email and password.',
  },
  provider_answer: {
    happened: "Your sign-in provider's answer could not be checked.",
    next: 'Try again. If it happens again, tell your operator: the server log says why.',
  },
  expired: {
    happened: 'The sign-in did not come back as it left, or took more than 10 minutes.',
    next: 'Start again with "Sign in with single sign-on".',
  },
  crossed: {
    happened: 'Two sign-ins crossed, or your account changed while you signed in.',
    next: 'Start again with "Sign in with single sign-on".',
  },
  unavailable: {
    happened: 'The single sign-on provider could not be reached.',
    next: 'Try again in a moment, or sign in with your email and password.',
  },
  throttled: {
    happened: 'There were too many failed sign-ins from your address.',
    next: 'Wait a few minutes before trying again.',
  },
};
const UNKNOWN_PROBLEM = {
  happened: 'Single sign-on did not sign you in.',
  next: 'Start again, or sign in with your email and password.',
};

/** The problem a refused single sign-on came back with, taken off the address at once. */
export function takeSsoProblem(): string | undefined {
  const problem = new URLSearchParams(location.search).get('sso_problem') ?? undefined;
  if (problem !== undefined) history.replaceState(null, '', location.pathname);
  return problem;
}

/**
 * Why single sign-on did not sign the person in, and what to do next, above the sign-in form. Only the
 * problem's name comes from the address: the words are the page's own.
 */
export function SsoProblemNotice(props: { problem: string }) {
  const { happened, next } = PROBLEMS[props.problem] ?? UNKNOWN_PROBLEM;
  return (
    <section role="alert" class="problem" aria-labelledby="sso-problem-title">
      <h2 id="sso-problem-title">Single sign-on did not sign you in</h2>
      <p>{happened}</p>
      <p>
        <strong>What to do:</strong> {next}
      </p>
    </section>
  );
}
