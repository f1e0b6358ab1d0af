import { Type } from 'typebox';
import { EndedSessionsOut } from './shared.schemas.js';

/** The schemas of the own-password route (src/http/routes/admin/own-password.ts). */

export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ maxLength: 1024, description: 'The password you sign in with now.' }),
    new_password: Type.String({ maxLength: 1024, description: 'The new password: 12 to 200 characters.' }),
  },
  {
    additionalProperties: false,
    title: 'ChangePassword',
    examples: [{ current_password: 'correct horse battery', new_password: 'a new horse on a new battery' }],
  },
);

export const PasswordChangedOut = EndedSessionsOut(
  'PasswordChanged',
  'How many other sessions of the account ended (the one the change was made from stays).',
  1,
);
