/** The Vite app (demo/index.html, demo/src) served in middleware mode on the demo's own server. */
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';

export const DEMO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `server`: the demo's own http server. Vite's client always opens its websocket, so it is given
 * this server to listen on (no second port): with `watch`, edits to demo or library files reload
 * the page.
 */
export async function createAppServer(options: { quiet: boolean; server: Server; watch: boolean }): Promise<ViteDevServer> {
  return createServer({
    // The repository's vite.config.ts configures the test runner, not this app.
    configFile: false,
    root: DEMO_ROOT,
    appType: 'spa',
    clearScreen: false,
    logLevel: options.quiet ? 'silent' : 'warn',
    server: {
      middlewareMode: true,
      hmr: { server: options.server },
      // Off for tests and screenshots: an edit elsewhere in the tree must not reload a page mid-run.
      ...(options.watch ? {} : { watch: null }),
      // The browser gets the app and the library, never server code (the proxy, the sandbox with its
      // default credentials, this backend) nor anything else in the repository.
      fs: {
        strict: true,
        allow: [DEMO_ROOT, `${REPO_ROOT}src`, `${REPO_ROOT}node_modules`],
        deny: ['.env', '.env.*', '*.{crt,pem}', '**/.git/**', '**/src/sandbox/**', '**/src/proxy/**', '**/demo/server/**', '**/demo/screenshots/**'],
      },
    },
    // Pre-bundled before the first page load, so no late re-optimisation reloads the page mid-flow
    // (the legacy entry's dependencies are imported only when the legacy option is ticked).
    optimizeDeps: {
      entries: ['index.html'],
      include: ['@hpke/core', '@simplewebauthn/browser', 'idb-keyval', '@noble/curves/nist.js', 'bs58check'],
    },
  });
}
