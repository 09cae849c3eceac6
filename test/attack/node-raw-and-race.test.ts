/**
 * Raw request targets through the Node adapter (before any URL parser resolves them), and racing
 * requests of a narrowed and a wide user of one customer sharing the ownership cache.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/proxy/index.js';
import { world, type World } from './world.js';
let w: World;
let server: Server;
let port = 0;
let card = '';
beforeAll(async () => {
  w = await world();
  card = (await w.svc('POST', '/cards', { cardholderId: w.A.customerId, fundingSource: w.A.other }, { 'idempotency-key': 'carol' })).body.id;
  w.users.set('alice', { customerId: w.A.customerId });
  server = createServer(toNodeHandler(w.proxy));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
}, 30_000);
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await w?.close();
});

function raw(method: string, target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let data = '';
    s.on('data', (d) => (data += d.toString('latin1')));
    s.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), text: data }));
    s.on('error', reject);
    s.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-user: alice\r\nConnection: close\r\n\r\n`);
  });
}

const targets = () => [
  `/customers/${w.A.customerId}/../${w.B.customerId}`,
  `/customers/${w.A.customerId}/%2e%2e/${w.B.customerId}`,
  `/customers/${w.A.customerId}%2f..%2f${w.B.customerId}`,
  `/customers/${w.A.customerId}\\..\\${w.B.customerId}`,
  `//customers/${w.B.customerId}`,
  `/customers/${w.B.customerId}/`,
  `http://127.0.0.1/customers/${w.B.customerId}`,
  `/customers/${w.B.customerId}%00`,
  `/customers/${w.B.customerId}?customerId=${w.A.customerId}`,
  `/./customers/${w.B.customerId}`,
  `/internal-account?customerId=${w.B.customerId}#`,
];

it('raw targets naming Bob are refused by the Node adapter', async () => {
  for (const t of targets()) {
    const r = await raw('GET', t);
    expect(r.status, t).toBeGreaterThanOrEqual(400);
    expect(r.text, t).not.toContain(w.B.wallet);
    expect(r.text, t).not.toContain('bob-co@example.com');
  }
  for (const m of ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT']) {
    const r = await raw(m, m === 'CONNECT' ? '127.0.0.1:1' : `/customers/${w.B.customerId}`);
    expect(r.status === 0 || r.status >= 400, m).toBe(true);
  }
});

it('racing narrowed and wide users of one customer: the narrowed one never gets Carol\'s card', async () => {
  const narrow = { customerId: w.A.customerId, accountIds: [w.A.wallet] };
  const wide = { customerId: w.A.customerId };
  const runs = await Promise.all(Array.from({ length: 30 }, (_, i) => w.as(i % 2 ? narrow : wide, 'GET', `/cards/${card}`).then((r) => [i % 2, r.status] as const)));
  for (const [isNarrow, status] of runs) expect(status).toBe(isNarrow ? 404 : 200);
});
