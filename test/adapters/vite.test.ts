/** The proxy on a real Vite dev server (and `vite preview`) through `proxyPlugin`: one origin for the app and /api. */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, preview, build, type PreviewServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyPlugin } from '../../src/proxy/index.js';
import { expectLibraryCalls, startWorld, type AdapterWorld } from './setup.js';

let world: AdapterWorld;
let root: string;
let dev: ViteDevServer | undefined;
let previewServer: PreviewServer | undefined;

beforeAll(async () => {
  world = await startWorld();
  root = mkdtempSync(join(tmpdir(), 'ews-vite-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title><p>the app</p>');
});
afterAll(async () => {
  await dev?.close();
  await previewServer?.close();
  await world?.sandbox.close();
  rmSync(root, { recursive: true, force: true });
});

describe('Vite', () => {
  it('dev server: plugins: [proxyPlugin(proxy)] serves /api through the proxy and the app beside it', async () => {
    dev = await createServer({
      configFile: false,
      root,
      logLevel: 'silent',
      plugins: [proxyPlugin(world.proxy('/api'))],
      server: { port: 0, host: '127.0.0.1', strictPort: false, hmr: false, watch: null },
    });
    await dev.listen();
    const origin = (dev.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expectLibraryCalls(`${origin}/api`, world);
    expect(await (await fetch(`${origin}/`)).text()).toContain('the app');
  });

  it('vite preview: the same plugin', async () => {
    mkdirSync(join(root, 'dist'), { recursive: true });
    await build({ configFile: false, root, logLevel: 'silent', build: { outDir: join(root, 'dist') } });
    previewServer = await preview({
      configFile: false,
      root,
      logLevel: 'silent',
      plugins: [proxyPlugin(world.proxy('/api'))],
      build: { outDir: join(root, 'dist') },
      preview: { port: 0, host: '127.0.0.1' },
    });
    const origin = (previewServer.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
    await expectLibraryCalls(`${origin}/api`, world);
  });
});
