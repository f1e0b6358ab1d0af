import type { SecondFactorService } from '../../../services/second-factor.js';
import { noContent } from '../../pipeline/error-responses.js';
import { principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import { adminPlugin } from './route.js';
import { CodeBody, EnrolmentOut, RecoveryCodesOut, TotpStatusOut } from './totp.schemas.js';

const tags = ['Sync API: your account'];

export type WithSecondFactors = AdminContext & { secondFactors: SecondFactorService };

/** The signed-in person's one-time codes (TOTP): set up, confirmed with a first code, turned off. */
export const totpRoutes = adminPlugin<WithSecondFactors>(tags, (needs, _services, { secondFactors }) => {
  needs('own_account').read('/account/totp', {
    operationId: 'getTotp',
    summary: 'Whether your sign-in asks for a one-time code',
    schema: { response: { 200: TotpStatusOut } },
    run: async (request) => {
      const status = await secondFactors.status(principalOf(request));
      return {
        enabled: status.enabled,
        recovery_codes_left: status.recoveryCodesLeft,
        required: status.required,
      };
    },
  });

  needs('own_account').write('POST', '/account/totp', {
    operationId: 'startTotp',
    summary: 'Set up one-time codes: a new secret for your authenticator app (shown once)',
    description:
      'Codes are asked for at sign-in only once confirmed with a first code (POST /account/totp/confirm).',
    secretField: 'secret',
    schema: { response: { 200: EnrolmentOut } },
    run: async (request) => {
      const { secret, uri } = await secondFactors.enrol(principalOf(request));
      return { secret, otpauth_uri: uri };
    },
  });

  needs('own_account').write('POST', '/account/totp/confirm', {
    operationId: 'confirmTotp',
    summary: 'Turn one-time codes on with a first code: ten recovery codes (shown once)',
    secretField: 'recovery_codes',
    schema: { body: CodeBody, response: { 200: RecoveryCodesOut } },
    run: async (request) => ({
      recovery_codes: await secondFactors.confirm(principalOf(request), request.body.code, request.ip),
    }),
  });

  needs('own_account').write('POST', '/account/totp/disable', {
    operationId: 'disableTotp',
    summary: 'Turn one-time codes off, with a current code (or a recovery code)',
    schema: { body: CodeBody, response: noContent('Turned off; the recovery codes are gone too.') },
    run: (request) => secondFactors.disable(principalOf(request), request.body.code, request.ip),
  });
});
