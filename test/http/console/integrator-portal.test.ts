import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_OPERATOR } from '../../../src/services/accounts.js';
import { expectNoSecrets } from '../../helpers/admin.js';
import { listeningForAccounts, PASSWORD, type Session, sessionOf } from '../../helpers/console-http.js';
import { send } from '../../helpers/process.js';
import { SAMPLE_MENU } from '../../helpers/runtime.js';
import { until } from '../../helpers/wait.js';
import { startReceiver, TEST_WEBHOOK_KEY } from '../../helpers/webhook-receiver.js';

/**
 * The rest of an integrator's portal, over real HTTP under its own session: its credential's usage per
 * hour, and its own webhooks within the operator's rules (https only, no loopback, private or
 * link-local target, at most --integrator-webhook-cap, only dispensaries that approved its access).
 * Another integrator sees and touches none of them. With --webhook-allow-private (development, as the
 * other webhook tests run) a loopback receiver gets the signed deliveries.
 */
type Server = Awaited<ReturnType<typeof listeningForAccounts>>;

interface Integrator {
  session: Session;
  username: string;
  password: string;
}

/** An approved integrator signed in, with its credential's password made in its portal. */
async function integrator(server: Server, email: string, dispensaryName?: string): Promise<Integrator> {
  const { integrators } = server.runtime.services;
  const registered = await integrators.register(
    { email, name: 'Ivy', company: 'Ivy Apps', building: 'A kiosk', password: PASSWORD },
    server.base,
  );
  const confirmed = await integrators.confirm(registered.url!.split('#')[1]);
  await integrators.approve(confirmed.accountId, CLI_OPERATOR);
  const session = sessionOf(await server.call('POST', '/session', undefined, { email, password: PASSWORD }));
  const rotated = await server.call('POST', '/developer/rotate-password', session);
  expect(rotated.status, rotated.body).toBe(200);
  if (dispensaryName !== undefined) {
    const asked = await server.call('POST', '/developer/access', session, { dispensary: dispensaryName });
    expect(asked.status, asked.body).toBe(201);
    await integrators.decideAccess(CLI_OPERATOR, JSON.parse(asked.body).id, 'approved');
  }
  return { session, ...(JSON.parse(rotated.body) as { username: string; password: string }) };
}

async function publishedServer(config: Parameters<typeof listeningForAccounts>[0]): Promise<Server> {
  const server = await listeningForAccounts({ webhookKey: TEST_WEBHOOK_KEY, ...config });
  await server.runtime.services.dispensaries.update(server.runtime.seed.dispensaryId, { published: true });
  return server;
}

describe('an integrator’s usage and webhooks in its portal', () => {
  let server: Server;
  let alice: Integrator;
  let bob: Integrator;
  let other: number;
  const secrets: string[] = [];

  beforeAll(async () => {
    server = await publishedServer({ integratorWebhookCap: 2 });
    other = (await server.runtime.services.dispensaries.create('Other Shop')).id;
    alice = await integrator(server, 'alice@example.com', 'Test Collective');
    bob = await integrator(server, 'bob@example.com');
    secrets.push(alice.password, bob.password);
  });
  afterAll(() => server?.runtime.close());

  it('usage: requests per hour of its own credential only', async () => {
    const { seed } = server.runtime;
    const readMenu = (who: { username: string; password: string }) =>
      send(`${server.base}/menu`, {
        headers: { store: seed.token, username: who.username, password: who.password },
      });
    for (let request = 0; request < 3; request++) expect((await readMenu(alice)).status).toBe(200);
    expect((await readMenu(seed)).status).toBe(200);

    const usage = await server.call('GET', '/developer/usage?hours=48', alice.session);
    expect(usage.status, usage.body).toBe(200);
    const rows = JSON.parse(usage.body) as { username: string; hour: string; requests: number }[];
    expect(rows.map((row) => row.username)).toEqual([alice.username]);
    expect(rows[0]!.requests).toBe(3);
    expect(rows[0]!.hour).toBe(new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString());
    expect(JSON.parse((await server.call('GET', '/developer/usage', bob.session)).body)).toEqual([]);
    for (const hours of ['0', '169', 'x']) {
      expect((await server.call('GET', `/developer/usage?hours=${hours}`, alice.session)).status).toBe(400);
    }
  });

  it('webhooks: https only, no private target, approved dispensaries only, up to the cap, its own only', async () => {
    const { seed } = server.runtime;
    const create = (who: Integrator, url: string, dispensary = seed.dispensaryId) =>
      server.call('POST', '/developer/webhooks', who.session, { dispensary_id: dispensary, url });
    for (const url of [
      'http://hooks.example.com/menu',
      'https://127.0.0.1/menu',
      'https://10.1.2.3/menu',
      'https://169.254.169.254/latest',
      'https://[fe80::1]/menu',
      'https://[::ffff:192.168.0.1]/menu',
    ]) {
      const refused = await create(alice, url);
      expect(refused.status, `${url}: ${refused.body}`).toBe(400);
    }
    expect((await create(alice, 'https://hooks.example.com/a', other)).status).toBe(403);
    const notApproved = await create(bob, 'https://hooks.example.com/b');
    expect(notApproved.status).toBe(403);
    expect(JSON.parse(notApproved.body).error.message).toContain('no dispensary yet');

    const created = await create(alice, 'https://hooks.example.com/a');
    expect(created.status, created.body).toBe(201);
    const hook = JSON.parse(created.body) as { id: number; credential: string; secret: string };
    secrets.push(hook.secret);
    expect(hook).toMatchObject({ credential: alice.username, dispensary_id: seed.dispensaryId });
    expect(hook.secret).toMatch(/^whsec_/);
    const second = await create(alice, 'https://hooks.example.com/second');
    expect(second.status).toBe(201);
    secrets.push(JSON.parse(second.body).secret);
    const capped = await create(alice, 'https://hooks.example.com/third');
    expect(capped.status).toBe(409);
    expect(JSON.parse(capped.body).error.message).toContain(
      'as many webhooks as this server allows an integrator (2)',
    );

    const listed = await server.call('GET', '/developer/webhooks', alice.session);
    expect(JSON.parse(listed.body).map((entry: { id: number }) => entry.id)).toContain(hook.id);
    expectNoSecrets(listed.body, secrets);
    // Another integrator neither sees nor touches it: not found, as a webhook that does not exist.
    expect(JSON.parse((await server.call('GET', '/developer/webhooks', bob.session)).body)).toEqual([]);
    const path = `/developer/webhooks/${hook.id}`;
    for (const [method, suffix, body] of [
      ['PATCH', '', { enabled: false }],
      ['POST', '/rotate-secret', undefined],
      ['GET', '/deliveries', undefined],
      ['DELETE', '', undefined],
    ] as const) {
      expect((await server.call(method, `${path}${suffix}`, bob.session, body)).status).toBe(404);
    }

    const patched = await server.call('PATCH', path, alice.session, {
      enabled: false,
      events: ['item.removed'],
    });
    expect(JSON.parse(patched.body)).toMatchObject({ enabled: false, events: ['item.removed'] });
    expect((await server.call('PATCH', path, alice.session, { url: 'https://10.0.0.1/x' })).status).toBe(400);
    const rotated = await server.call('POST', `${path}/rotate-secret`, alice.session);
    expect(rotated.status, rotated.body).toBe(200);
    expect(JSON.parse(rotated.body).secret).not.toBe(hook.secret);
    secrets.push(JSON.parse(rotated.body).secret);
    expect((await server.call('GET', `${path}/deliveries`, alice.session)).status).toBe(200);
    expect((await server.call('DELETE', path, alice.session)).status).toBe(204);
    expect((await server.call('DELETE', path, alice.session)).status).toBe(404);
    expect((await create(alice, 'https://hooks.example.com/third')).status).toBe(201);

    const audit = await server.runtime.services.audit.list({ limit: 1000 });
    expect(audit.map((entry) => entry.actor)).toContain('account:alice@example.com');
    expectNoSecrets(JSON.stringify(audit), secrets);
  });

  it('with --webhook-allow-private (development), a loopback receiver gets its signed deliveries', async () => {
    const receiver = await startReceiver();
    const development = await publishedServer({ webhookAllowPrivate: true });
    try {
      const carol = await integrator(development, 'carol@example.com', 'Test Collective');
      const created = await development.call('POST', '/developer/webhooks', carol.session, {
        dispensary_id: development.runtime.seed.dispensaryId,
        url: receiver.url,
      });
      expect(created.status, created.body).toBe(201);
      const { menus } = development.runtime.services;
      await menus.replace(development.runtime.seed.dispensaryId, menus.validate(SAMPLE_MENU));
      await until(() => receiver.received.length > 0, 10_000, 'a delivery');
      const [first] = receiver.verified(JSON.parse(created.body).secret);
      expect(first!.payload.dispensary_id).toBe(development.runtime.seed.dispensaryId);
    } finally {
      await development.runtime.close();
      await receiver.close();
    }
  });
});
