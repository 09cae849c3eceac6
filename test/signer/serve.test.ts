// The signer page's server (src/signer/host/serve.ts): a malformed request is answered, never a
// crash of the server; only GET/HEAD, only the page's own files, the configuration beside them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSignerPage, type SignerPageServer } from '../../src/signer/host/serve.js';

const CONFIG = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api', trustedKeys: ['04ab'], name: 'Acme' } as const;
let dir = '';
let server: SignerPageServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signer-serve-'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>signer</title>');
  server = await serveSignerPage({ dir, config: CONFIG, host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('serveSignerPage', () => {
  it('a malformed escape (/%, /%zz, /%E0%A4%A) is 400 and the server keeps serving', async () => {
    for (const path of ['/%', '/%zz', '/%E0%A4%A']) {
      const answer = await fetch(`${server.url.replace(/\/$/, '')}${path}`);
      expect(answer.status, path).toBe(400);
    }
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>signer</title>');
  });

  it('serves its configuration, refuses other methods, and nothing outside its directory', async () => {
    const base = server.url.replace(/\/$/, '');
    expect(await (await fetch(`${base}/signer-config.json`)).json()).toEqual(CONFIG);
    expect((await fetch(base, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${base}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
  });
});
