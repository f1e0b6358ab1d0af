import type { OwnPasswordService } from '../../../services/own-password.js';
import { cookieOf, principalOf, SESSION_COOKIE } from './auth.js';
import type { AdminContext } from './context.js';
import { ChangePasswordBody, PasswordChangedOut } from './own-password.schemas.js';
import { adminPlugin } from './route.js';

const tags = ['Sync API: your account'];

export type WithOwnPassword = AdminContext & { ownPassword: OwnPasswordService };

/** The signed-in person's own password, changed with the current one (the console's Account page). */
export const ownPasswordRoutes = adminPlugin<WithOwnPassword>(tags, (needs, _services, { ownPassword }) => {
  needs('own_account').write('POST', '/account/password', {
    operationId: 'changePassword',
    summary: 'Change your password, with your current one: your other sessions end',
    description:
      'For an account’s session only. A wrong current password is refused (403) and counts as a failed login of the account and of your address (429 after too many). The session the change is made from stays; every other one ends, as do unused reset links.',
    schema: { body: ChangePasswordBody, response: { 200: PasswordChangedOut } },
    run: async (request) => {
      const { endedSessions } = await ownPassword.change(
        principalOf(request),
        { current: request.body.current_password, next: request.body.new_password },
        cookieOf(request, SESSION_COOKIE),
        request.ip,
      );
      return { ended_sessions: endedSessions };
    },
  });
});
