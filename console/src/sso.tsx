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
