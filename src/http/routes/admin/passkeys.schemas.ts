import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';
import { IdText } from './shared.schemas.js';

/** The schemas of the passkey routes (src/http/routes/admin/passkeys.ts and the sign-in in session.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  passkey: {
    id: 1,
    name: 'Work laptop',
    created_at: '2026-11-27T12:00:00.000Z',
    last_used_at: null,
  },
  creation: {
    challenge: 'Xy3bQm4t9kVn2pL8sR1wZ6cF0hJ5gD7a',
    rp: { name: 'Dispensary menu console', id: 'menu.example.com' },
    user: { id: 'YWNjb3VudDox', name: 'manager@example.com', displayName: 'manager@example.com' },
    pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
    timeout: 300000,
    attestation: 'none',
    excludeCredentials: [],
    authenticatorSelection: {
      residentKey: 'required',
      userVerification: 'required',
      requireResidentKey: true,
    },
  },
  request: {
    challenge: 'Xy3bQm4t9kVn2pL8sR1wZ6cF0hJ5gD7a',
    rpId: 'menu.example.com',
    timeout: 300000,
    userVerification: 'required',
  },
  credential: {
    id: 'AAECAwQFBgcICQ',
    rawId: 'AAECAwQFBgcICQ',
    type: 'public-key',
    response: {
      clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
      authenticatorData: 'AAEC',
      signature: 'AAEC',
    },
    clientExtensionResults: {},
  },
};

export const PasskeyOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: 'What its owner called it.' }),
    created_at: Type.String(),
    last_used_at: Nullable(Type.String({ description: 'The last sign-in with it, or null.' })),
  },
  { additionalProperties: false, title: 'Passkey', examples: [EXAMPLES.passkey] },
);

export const PasskeyParams = Type.Object({ id: IdText('Passkey id') });

/** WebAuthn's own JSON (the W3C spec's), passed to and from the browser as SimpleWebAuthn makes it. */
const WEBAUTHN_JSON = Type.Record(Type.String(), Type.Unknown());

export const CreationOptionsOut = Type.Record(Type.String(), Type.Unknown(), {
  title: 'PasskeyCreationOptions',
  description:
    'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3) for navigator.credentials.create; its challenge works once, for 5 minutes.',
  examples: [EXAMPLES.creation],
});

export const RequestOptionsOut = Type.Record(Type.String(), Type.Unknown(), {
  title: 'PasskeyRequestOptions',
  description:
    'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3) for navigator.credentials.get; its challenge works once, for 5 minutes.',
  examples: [EXAMPLES.request],
});

export const RegisterPasskeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: 'A name to tell the passkey by.' }),
    response: Type.Record(Type.String(), Type.Unknown(), {
      description: "The browser's RegistrationResponseJSON, as navigator.credentials.create answered.",
    }),
  },
  {
    additionalProperties: false,
    title: 'RegisterPasskey',
    examples: [{ name: 'Work laptop', response: EXAMPLES.credential }],
  },
);

export const PasskeySignInBody = Type.Object(
  {
    response: {
      ...WEBAUTHN_JSON,
      description: "The browser's AuthenticationResponseJSON, as navigator.credentials.get answered.",
    },
  },
  { additionalProperties: false, title: 'PasskeySignIn', examples: [{ response: EXAMPLES.credential }] },
);
