/** The proxy in a real Express 5 app: at the root, mounted under a path, and behind express.json(). */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressMiddleware } from '../../src/proxy/index.js';
import { expectLibraryCalls, startWorld, type AdapterWorld } from './setup.js';

let world: AdapterWorld;
const servers: Server[] = [];

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  for (const server of servers) server.close();
  await world?.sandbox.close();
});

function listen(app: express.Express): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    servers.push(server);
  });
}

describe('Express', () => {
  it('app.use(expressMiddleware(proxy)): GET, POST, PATCH, DELETE through, ownership enforced, other routes untouched', async () => {
    const app = express();
    app.use(expressMiddleware(world.proxy('/api')));
    app.get('/hello', (_req, res) => {
      res.json({ hello: 'world' });
    });
    const origin = await listen(app);
    await expectLibraryCalls(`${origin}/api`, world);
    expect(await (await fetch(`${origin}/hello`)).json()).toEqual({ hello: 'world' });
  });

  it("mounted: app.use('/api', expressMiddleware(proxy)) with the proxy's prefix", async () => {
    const app = express();
    app.use('/api', expressMiddleware(world.proxy('/api')));
    const origin = await listen(app);
    await expectLibraryCalls(`${origin}/api`, world);
  });

  it('behind express.json(): a request with a body is refused with a clear reason, never forwarded half-read', async () => {
    const app = express();
    app.use(express.json());
    app.use(expressMiddleware(world.proxy('/api')));
    const origin = await listen(app);
    const { alice } = world.users;
    const response = await fetch(`${origin}/api/internal-accounts/${encodeURIComponent(alice.accountId)}`, {
      method: 'PATCH',
      headers: { 'x-test-user': 'alice', 'content-type': 'application/json' },
      body: JSON.stringify({ nickname: 'x' }),
    });
    const body = (await response.json()) as { code: string; reason: string };
    expect([response.status, body.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(body.reason).toMatch(/before body parsers such as express\.json\(\)/);
    // A GET has no body to lose: it still goes through.
    expect((await fetch(`${origin}/api/auth/credentials?accountId=${encodeURIComponent(alice.accountId)}`, { headers: { 'x-test-user': 'alice' } })).status).toBe(200);
  });
});
