/** An HTTP Basic Authorization header's value for these bytes (RFC 7617): `Basic ` and their base64. */
export const basicAuthorization = (pair: string | Uint8Array): string =>
  `Basic ${Buffer.from(pair).toString('base64')}`;
