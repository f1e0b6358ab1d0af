import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software passkey authenticator for HTTP tests (the browser test uses Chromium's virtual one): it
 * answers WebAuthn options as a platform authenticator with user verification would (ES256, attestation
 * "none"), signing with a real P-256 key, so the server's checks run on real signatures.
 */
export class SoftAuthenticator {
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  readonly credentialId = randomBytes(16).toString('base64url');
  private counter = 0;

  constructor(private readonly origin: string) {}

  /** The answer to creation options (RegistrationResponseJSON). */
  register(options: { challenge: string; rp: { id?: string } }, origin = this.origin) {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = Buffer.from(this.credentialId, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      counterBytes(this.counter),
      Buffer.alloc(16), // AAGUID: none
      length,
      id,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientData('webauthn.create', options.challenge, origin),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to request options (AuthenticationResponseJSON). */
  authenticate(options: { challenge: string; rpId?: string }, origin = this.origin) {
    this.counter++;
    const authData = Buffer.concat([
      sha256(options.rpId ?? new URL(origin).hostname),
      Buffer.from([0x05]), // user present, user verified
      counterBytes(this.counter),
    ]);
    const clientDataJSON = clientData('webauthn.get', options.challenge, origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
      this.keys.privateKey,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
      },
      clientExtensionResults: {},
    };
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

function clientData(type: string, challenge: string, origin: string): string {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })).toString('base64url');
}
