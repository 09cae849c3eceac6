/**
 * A Vite plugin for development in frame mode: while the app's dev server runs, the signer page is
 * served on a second port (another origin), with its configuration and headers (serve.ts).
 *
 * @example
 * ```ts
 * // vite.config.ts
 * import { signerPagePlugin } from 'embedded-wallet-signer/signer-host';
 * export default { plugins: [signerPagePlugin({ port: 5174, config: {
 *   allowedParentOrigins: ['http://localhost:5173'], baseUrl: 'http://localhost:5173/api', trustedKeys: [ENCLAVE_KEY] } })] };
 * ```
 */
import { serveSignerPage, type SignerPageServer, type SignerPageServerOptions } from './serve.js';

/** The slice of Vite's plugin and server types this plugin uses (no dependency on Vite's types). */
export interface SignerPagePlugin {
  /** The plugin's name. */
  readonly name: string;
  /** Dev server only. */
  readonly apply: 'serve';
  /** Starts the signer page's server beside Vite's (and stops it with it). */
  configureServer(server: { httpServer: { once(event: 'close', listener: () => void): unknown } | null; config: { logger: { info(message: string): void } } }): Promise<void>;
}

/** Options of {@link signerPagePlugin}: those of `serveSignerPage`, `dir` defaulting to the package's built page. */
export type SignerPagePluginOptions = Omit<SignerPageServerOptions, 'dir'> & { readonly dir?: string };

/** The built signer page shipped in the package (dist/signer-page/). */
export function packagedSignerPage(): string {
  return new URL('../../signer-page/', import.meta.url).pathname;
}

/** The Vite plugin serving the signer page on `options.port` while the dev server runs. */
export function signerPagePlugin(options: SignerPagePluginOptions): SignerPagePlugin {
  let running: SignerPageServer | undefined;
  return {
    name: 'embedded-wallet-signer:signer-page',
    apply: 'serve',
    async configureServer(server) {
      running = await serveSignerPage({ ...options, dir: options.dir ?? packagedSignerPage() });
      server.config.logger.info(`  ➜  Signer:  ${running.url}`);
      server.httpServer?.once('close', () => void running?.close());
    },
  };
}
