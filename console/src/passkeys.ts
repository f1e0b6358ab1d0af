import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { AdminSession, PasskeySummary } from '../../src/client/types.js';
import { ApiError, api } from './api.js';

/**
 * The browser's half of passkeys: the server's options go to the authenticator (through
 * @simplewebauthn/browser, bundled by Vite, no CDN) and its signed answer back. Nothing is kept in the
 * page: the challenge lives on the server, once.
 */
type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];
type RequestOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

export async function registerPasskey(name: string): Promise<PasskeySummary> {
  const optionsJSON = await api<CreationOptions>('POST', '/account/passkeys/options');
  const response = await ceremony(() => startRegistration({ optionsJSON }));
  return api<PasskeySummary>('POST', '/account/passkeys', { name, response });
}

export async function signInWithPasskey(): Promise<AdminSession> {
  const optionsJSON = await api<RequestOptions>('POST', '/session/passkey/options');
  const response = await ceremony(() => startAuthentication({ optionsJSON }));
  return api<AdminSession>('POST', '/session/passkey', { response });
}

/** The browser's refusals (cancelled, no passkey here, not supported) as a message that says what to do. */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (failure) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new ApiError(
      0,
      'passkey_refused',
      `The browser did not use a passkey (${reason}). Try again, or use your email and password.`,
    );
  }
}
