import { Type } from 'typebox';

/** The schemas of one-time codes (TOTP): src/http/routes/admin/totp.ts and the second step of sign-in in session.ts. */

export const PendingSignInOut = Type.Object(
  {
    second_factor: Type.Union([Type.Literal('totp'), Type.Literal('enroll')], {
      description:
        'totp: send a code (or a recovery code) to POST /admin/v1/session/second-factor; enroll: this account must set up one-time codes first (--require-second-factor): POST /admin/v1/session/second-factor/enroll.',
    }),
    pending_token: Type.String({
      description: 'Names this sign-in in the next step; works for 5 minutes. Keep it in memory only.',
    }),
    expires_at: Type.String(),
  },
  {
    additionalProperties: false,
    title: 'PendingSignIn',
    description: 'The password was right; no session yet: a second factor is needed.',
    examples: [
      {
        second_factor: 'totp',
        pending_token: 'p3Rk9sV2mX7qL1tZ5wB8nC4hJ6dF0gA2yE8uK1iO4nQ',
        expires_at: '2026-11-27T12:05:00.000Z',
      },
    ],
  },
);

const PendingToken = Type.String({ minLength: 1, maxLength: 200, description: 'From the sign-in’s answer.' });
const Code = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'The current 6-digit code from the authenticator app, or a recovery code.',
});

export const SecondFactorBody = Type.Object(
  { pending_token: PendingToken, code: Code },
  {
    additionalProperties: false,
    title: 'SecondFactor',
    examples: [{ pending_token: 'p3Rk9sV2mX7qL1tZ5wB8nC4hJ6dF0gA2yE8uK1iO4nQ', code: '492039' }],
  },
);

export const PendingEnrolBody = Type.Object(
  { pending_token: PendingToken },
  {
    additionalProperties: false,
    title: 'PendingEnrolment',
    examples: [{ pending_token: 'p3Rk9sV2mX7qL1tZ5wB8nC4hJ6dF0gA2yE8uK1iO4nQ' }],
  },
);

export const CodeBody = Type.Object(
  { code: Code },
  { additionalProperties: false, title: 'TotpCode', examples: [{ code: '492039' }] },
);

export const EnrolmentOut = Type.Object(
  {
    secret: Type.String({ description: 'The shared secret in base32, to type into the app. Shown once.' }),
    otpauth_uri: Type.String({ description: 'The same as an otpauth:// URI (for a QR code). Shown once.' }),
  },
  {
    additionalProperties: false,
    title: 'TotpEnrolment',
    examples: [
      {
        secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        otpauth_uri:
          'otpauth://totp/Menu%20console:manager%40example.com?issuer=Menu%20console&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
      },
    ],
  },
);

const RecoveryCodes = Type.Array(Type.String(), {
  description: 'Ten recovery codes, each usable once instead of a code. Shown once: keep them safe.',
});

export const RecoveryCodesOut = Type.Object(
  { recovery_codes: RecoveryCodes },
  {
    additionalProperties: false,
    title: 'RecoveryCodes',
    examples: [{ recovery_codes: ['abcde-fghij', 'kmnpq-rstuv'] }],
  },
);

export const TotpStatusOut = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether sign-in asks this account for a code.' }),
    recovery_codes_left: Type.Integer(),
    required: Type.Boolean({
      description: 'Whether the operator requires a second factor (--require-second-factor).',
    }),
  },
  {
    additionalProperties: false,
    title: 'TotpStatus',
    examples: [{ enabled: true, recovery_codes_left: 10, required: false }],
  },
);
