/**
 * The dispensary the API's examples show (./examples.ts, the OpenAPI document's "try it"), and that
 * `serve --demo` loads (src/demo/seed.ts), so that every example answers on a demo server. The
 * credentials are public by design; the address, the 555 phone number and the .example domain are
 * fictional.
 */
export const EXAMPLE_DISPENSARY = {
  dispensaryName: 'Demo Collective',
  token: 'demo-collective-token',
  username: 'demo',
  password: 'demo-password',
} as const;

const day = (open: string, close: string) => ({ open, close, closed: false as const });

/** Its store information (snake_case, as the sync API takes it): complete and realistic. */
export const EXAMPLE_STORE = {
  name: EXAMPLE_DISPENSARY.dispensaryName,
  address: '1200 Harbor Blvd',
  city: 'Oakland',
  state: 'CA',
  postal_code: '94607',
  country: 'US',
  phone: '+1 510 555 0100',
  email: 'hello@demo-collective.example',
  website: 'https://demo-collective.example',
  timezone: 'America/Los_Angeles',
  license_number: 'C10-0000001-LIC',
  currency: 'USD',
  hours: {
    monday: day('09:00', '21:00'),
    tuesday: day('09:00', '21:00'),
    wednesday: day('09:00', '21:00'),
    thursday: day('09:00', '21:00'),
    friday: day('09:00', '23:00'),
    saturday: day('10:00', '02:00'),
    sunday: { open: null, close: null, closed: true as const },
  },
  logo: 'https://demo-collective.example/logo.png',
};
