import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BasicCredentials, basicCredentials, basicPair } from '../../src/forms/form-v1/basic-credentials.js';
import { ServiceError } from '../../src/services/errors.js';
import { basicAuthorization } from '../helpers/basic-auth.js';

/**
 * Form v1's Basic header decoding (src/forms/form-v1/basic-credentials.ts) takes a cheaper path for
 * ASCII pairs; every header must still decode as Buffer's UTF-8 decoding of its base64 does, the
 * reference here, or be malformed exactly when that one is.
 */
const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
function reference(header: string): { username: string; password: string } | undefined {
  const match = BASIC.exec(header);
  if (!match) return undefined;
  const pair = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return undefined;
  return { username: pair.slice(0, colon), password: pair.slice(colon + 1) };
}

const BASE64_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

describe('Form v1 Basic credentials', () => {
  it('decodes ASCII and UTF-8 pairs as UTF-8, the first colon splitting them', () => {
    expect(basicPair(basicAuthorization('integrator:s3cret:with:colons'))).toEqual({
      username: 'integrator',
      password: 's3cret:with:colons',
    });
    expect(basicPair(basicAuthorization('intégrateur:pässwörd✓'))).toEqual({
      username: 'intégrateur',
      password: 'pässwörd✓',
    });
    // Latin-1 bytes that are not UTF-8: replacement characters, as Buffer decodes them.
    expect(basicPair(basicAuthorization(Uint8Array.from([0x75, 0x3a, 0xe9])))).toEqual({
      username: 'u',
      password: '\ufffd',
    });
    expect(basicPair(basicAuthorization(':'))).toEqual({ username: '', password: '' });
  });

  it('takes the padding and spacing Buffer takes, and refuses what is not Basic', () => {
    for (const header of [
      'Basic QQ=',
      'Basic QQ',
      'Basic QTpi',
      'basic   QTpi  ',
      'BASIC QTpiYw==',
      'Basic QTpiYw',
      'Basic QTpiYw=',
      'Basic A',
      'Basic QTpiY',
      'Basic QUJD=',
      'Basic QTpi===',
      'Basic QT pi',
      'Bearer QTpi',
      'Basic',
      'Basic QUJD',
    ])
      expect(basicPair(header), header).toEqual(reference(header));
    expect(() => basicCredentials('Bearer x')).toThrow(ServiceError);
  });

  it('decodes any pair of bytes, and any base64, as the reference does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.integer({ min: 0, max: 2 }), (bytes, cut) => {
        const header = basicAuthorization(bytes);
        // Padding dropped, whole or in part: base64 Buffer takes as it is.
        const trimmed = header.replace(/=+$/, (padding) => padding.slice(cut));
        expect(basicPair(trimmed)).toEqual(reference(trimmed));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9+/]{1,40}={0,2}$/), (base64) => {
        expect(basicPair(`Basic ${base64}`)).toEqual(reference(`Basic ${base64}`));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves a pair with one byte beyond ASCII, anywhere in it, to Buffer, as the reference decodes it', () => {
    const ascii = fc.stringMatching(/^[ -~]{0,12}$/);
    fc.assert(
      fc.property(
        ascii,
        ascii,
        fc.nat(),
        fc.integer({ min: 0x80, max: 0xff }),
        fc.integer({ min: 0, max: 2 }),
        (username, password, at, byte, cut) => {
          const bytes = Buffer.from(`${username}:${password}`);
          bytes[at % bytes.length] = byte;
          const header = basicAuthorization(bytes).replace(/=+$/, (padding) => padding.slice(cut));
          expect(basicPair(header)).toEqual(reference(header));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reads any header near the usual one as the reference does: other schemes, spaces, stray characters', () => {
    const scheme = fc.constantFrom(
      'Basic',
      'basic',
      'BASIC',
      'bAsIc',
      'Basi',
      'Basicc',
      'Bearer',
      'B\u0000sic',
      '',
    );
    const textOf = (characters: string, maxLength: number) =>
      fc.array(fc.constantFrom(...characters), { maxLength }).map((chosen) => chosen.join(''));
    const spacing = textOf(' \t\u0000', 3);
    // An ASCII pair's base64, as clients send it; with one stray character put in; or any text.
    const pair = fc
      .tuple(fc.stringMatching(/^[ -~]{0,12}$/), fc.stringMatching(/^[ -~]{0,12}$/))
      .map(([username, password]) => Buffer.from(`${username}:${password}`).toString('base64'));
    const stray = fc
      .tuple(pair, fc.nat(), fc.constantFrom(' ', '\t', '\u0000', '=', '\u0080', 'é', '-', '_'))
      .map(([base64, at, character]) => {
        const cut = at % (base64.length + 1);
        return `${base64.slice(0, cut)}${character}${base64.slice(cut)}`;
      });
    const value = fc.oneof(pair, stray, textOf(`${BASE64_CHARACTERS}= \u0000\u0080é:`, 40));
    fc.assert(
      fc.property(scheme, spacing, value, (name, space, rest) => {
        const header = `${name}${space}${rest}`;
        expect(basicPair(header)).toEqual(reference(header));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps the header as sent, and decodes the pair only when it is read; a malformed one is refused then', () => {
    const header = basicAuthorization('integrator:s3cret');
    const credentials = new BasicCredentials(header, 'token');
    expect(credentials.sentAs).toBe(header);
    expect(credentials.token).toBe('token');
    expect([credentials.username, credentials.password]).toEqual(['integrator', 's3cret']);
    const malformed = new BasicCredentials('Bearer x', 'token');
    expect(malformed.token).toBe('token');
    const refusal = (() => {
      try {
        return malformed.password;
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ code: 'invalid_request' });
  });
});
