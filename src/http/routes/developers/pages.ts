import { escapeHtml as e, PAGE_HEAD } from '../display/html.js';

/**
 * The HTML of /developers, where integrators register and confirm their email: server-rendered, no
 * inline script or style (the stylesheet and the confirmation page's script are files of this route).
 */

/** What the registration form sends, given back to the page when it is refused (never the password). */
export interface RegistrationFields {
  name: string;
  company: string;
  email: string;
  building: string;
}

export const EMPTY_FIELDS: RegistrationFields = { name: '', company: '', email: '', building: '' };

export const DEVELOPERS_CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.7rem;margin-bottom:.3rem}
label{display:block;font-weight:600;margin-top:1rem}
.hint{display:block;font-weight:400;color:#4a4a4a;font-size:.9rem}
input,textarea{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.45rem;border:1px solid #6b6b6b;border-radius:4px;margin-top:.25rem}
textarea{min-height:6rem}
input:focus,textarea:focus,button:focus,a:focus{outline:3px solid #1a5fb4;outline-offset:2px}
button{margin-top:1.2rem;font:inherit;font-weight:600;padding:.55rem 1.2rem;border:0;border-radius:4px;background:#1a5fb4;color:#fff;cursor:pointer}
.error{border-left:4px solid #a51d2d;background:#fbeaea;padding:.6rem .8rem;margin:1rem 0}
.done{border-left:4px solid #26a269;background:#e9f6ee;padding:.6rem .8rem;margin:1rem 0}
code{background:#f2f2f2;padding:0 .2rem}
a{color:#1a5fb4}
`;

/**
 * Fills the code field from the link's fragment (`#SECRET`: a fragment never reaches a server or its
 * logs), then drops the fragment from the address bar and history.
 */
export const CONFIRM_JS = `(function () {
  var secret = location.hash.slice(1);
  var field = document.getElementById('code');
  if (secret && field) {
    field.value = secret;
    history.replaceState(null, '', location.pathname);
  }
})();
`;

function page(title: string, body: string, script = ''): string {
  return `${PAGE_HEAD}
<title>${e(title)} · Dispensary Menu API</title>
<link rel="stylesheet" href="/developers/developers.css">
${script ? `<script src="${script}" defer></script>\n` : ''}</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function registrationPage(fields: RegistrationFields = EMPTY_FIELDS, error?: string): string {
  const field = (
    id: keyof RegistrationFields,
    label: string,
    type: string,
    hint: string,
    autocomplete: string,
  ) =>
    `<label for="${id}">${e(label)}<span class="hint" id="${id}-hint">${e(hint)}</span></label>
<input id="${id}" name="${id}" type="${type}" required maxlength="${id === 'email' ? 254 : 200}" autocomplete="${autocomplete}" aria-describedby="${id}-hint" value="${e(fields[id])}">`;
  return page(
    'Developers',
    `<h1>Build on the dispensary menu API</h1>
<p>Register to read the menus of dispensaries on this server. You confirm your email, the operator approves
your registration, and you get an API credential. Then ask each dispensary for access; its managers decide.
Already registered? <a href="/console/">Sign in</a> to your portal.</p>
${error ? `<p class="error" role="alert">${e(error)}</p>` : ''}
<form method="post" action="/developers">
${field('name', 'Your name', 'text', 'As the operator should address you.', 'name')}
${field('company', 'Company', 'text', 'Or your own name if you build alone.', 'organization')}
${field('email', 'Email', 'email', 'The confirmation link goes here; you sign in with it.', 'email')}
<label for="building">What you build<span class="hint" id="building-hint">A few words for the operator: a menu app, a kiosk, a website…</span></label>
<textarea id="building" name="building" required maxlength="2000" aria-describedby="building-hint">${e(fields.building)}</textarea>
<label for="password">Password<span class="hint" id="password-hint">12 to 200 characters; a few words make a good one.</span></label>
<input id="password" name="password" type="password" required minlength="12" maxlength="200" autocomplete="new-password" aria-describedby="password-hint">
<button type="submit">Register</button>
</form>
<p>The API reference is at <a href="/docs">/docs</a>.</p>`,
  );
}

export function registeredPage(email: string): string {
  return page(
    'Check your email',
    `<h1>Check your email</h1>
<p class="done" role="status">If <strong>${e(email)}</strong> can be registered, a confirmation link is on its way
there. Open it to confirm your email; the operator then reviews your registration.</p>
<p><a href="/developers">Back to the developers page</a></p>`,
  );
}

export function confirmPage(error?: string): string {
  return page(
    'Confirm your email',
    `<h1>Confirm your email</h1>
${error ? `<p class="error" role="alert">${e(error)}</p>` : ''}
<form method="post" action="/developers/confirm">
<label for="code">Confirmation code<span class="hint" id="code-hint">Filled in from the link in your email; or paste the part after # here.</span></label>
<input id="code" name="code" type="text" required maxlength="100" autocomplete="off" spellcheck="false" aria-describedby="code-hint">
<button type="submit">Confirm</button>
</form>`,
    '/developers/confirm.js',
  );
}

export function confirmedPage(approved: boolean): string {
  return page(
    'Email confirmed',
    `<h1>Email confirmed</h1>
<p class="done" role="status">${
      approved
        ? 'Your registration is approved: <a href="/console/">sign in</a> with your email and password to see your API credential.'
        : 'Thank you. The operator of this server reviews your registration; once it is approved you can <a href="/console/">sign in</a> with your email and password.'
    }</p>`,
  );
}

export function refusedPage(message: string): string {
  return page('Not accepted', `<h1>Not accepted</h1>\n<p class="error" role="alert">${e(message)}</p>`);
}
