/**
 * `embedded-wallet-signer/signer-host` (Node): hosting the signer page of frame mode. The headers
 * any host must send with it (`signerPageHeaders`), a small server for development and tests
 * (`serveSignerPage`), a Vite plugin that runs it beside the app's dev server
 * (`signerPagePlugin`), and where the built page is (`packagedSignerPage`). The page itself is
 * `embedded-wallet-signer/signer-page/*` (index.html, signer.js, signer.css and chunks); the host
 * adds `signer-config.json` beside it.
 */
export { signerPageHeaders, type SignerHostConfig } from './headers.js';
export type { SignerConfig } from '../frame/config.js';
export type { HighValue, HighValueKind } from '../frame/approval-route.js';
/** The signer's texts a host may override in `signer-config.json` `strings` (keys and defaults). */
export { DEFAULT_STRINGS, type StringKey, type Strings } from '../words/strings.js';
export type { TrustedKeys } from '../../crypto/index.js';
export { serveSignerPage, type SignerPageServer, type SignerPageServerOptions } from './serve.js';
export { packagedSignerPage, signerPagePlugin, type SignerPagePlugin, type SignerPagePluginOptions } from './vite-plugin.js';
