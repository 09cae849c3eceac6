/**
 * `npm start`: the sandbox, the proxy, the demo login and the app on one URL.
 *
 * Environment:
 * - `DEMO_PORT` (default 5173), `SANDBOX_PORT` (default 8787);
 * - `SANDBOX_CLIENT_ID` / `SANDBOX_CLIENT_SECRET`: platform credentials shared by the sandbox and
 *   the proxy (default the sandbox's own defaults);
 * - `SERVICE_BASE_URL` + `SERVICE_CLIENT_ID` + `SERVICE_CLIENT_SECRET`: target a real service
 *   instead (no sandbox is started); `SERVICE_TRUSTED_KEYS`: comma-separated enclave public keys
 *   (uncompressed hex) the browser trusts for OTP and export bundles;
 * - `DEMO_MODE`: `frame` (default: the wallet's keys, codes and approvals live in the signer page,
 *   served on `SIGNER_PORT`, default 5174: another origin of the same site) or `in-origin` (the
 *   wallet in the app's own page: every script of the app can sign).
 */
import { startDemoStack, type DemoStackOptions } from './stack.js';

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    console.error(`${name} must be a port number (0–65535), not "${raw}".`);
    process.exit(1);
  }
  return value;
}

function serviceFromEnv(): DemoStackOptions['service'] {
  const baseUrl = process.env.SERVICE_BASE_URL;
  const clientId = process.env.SERVICE_CLIENT_ID;
  const clientSecret = process.env.SERVICE_CLIENT_SECRET;
  if (!baseUrl && !clientId && !clientSecret) return undefined;
  if (!baseUrl || !clientId || !clientSecret) {
    console.error('To use a real service set all three of SERVICE_BASE_URL, SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET.');
    process.exit(1);
  }
  const trustedKeys = (process.env.SERVICE_TRUSTED_KEYS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (trustedKeys.length === 0) console.warn('SERVICE_TRUSTED_KEYS is not set: OTP and export bundle signatures will NOT be verified.');
  return { baseUrl, clientId, clientSecret, trustedKeys };
}

const options: DemoStackOptions = { port: port('DEMO_PORT', 5173), sandboxPort: port('SANDBOX_PORT', 8787) };
const mode = process.env.DEMO_MODE || 'frame';
if (mode !== 'frame' && mode !== 'in-origin') {
  console.error(`DEMO_MODE must be frame or in-origin, not "${mode}".`);
  process.exit(1);
}
if (mode === 'frame') options.signer = { port: port('SIGNER_PORT', 5174) };
const service = serviceFromEnv();
if (service) options.service = service;
if (process.env.SANDBOX_CLIENT_ID) options.sandboxClientId = process.env.SANDBOX_CLIENT_ID;
if (process.env.SANDBOX_CLIENT_SECRET) options.sandboxClientSecret = process.env.SANDBOX_CLIENT_SECRET;

try {
  const stack = await startDemoStack(options);
  // Stop handlers before the lines a parent waits for, so a stop right after them exits cleanly.
  const stop = () => {
    void stack.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.info(stack.sandbox ? `Sandbox:  ${stack.sandboxUrl} (OTP code 000000)` : `Service:  ${stack.sandboxUrl}`);
  console.info(`Demo:     ${stack.url}`);
  console.info(stack.signerUrl ? `Signer:   ${stack.signerUrl} (frame mode; DEMO_MODE=in-origin for the wallet in the app's page)` : 'Mode:     in-origin (every script of the app can sign; DEMO_MODE=frame for the signer frame)');
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  console.error(`The demo could not start: ${message}`);
  if (/EADDRINUSE/.test(message)) console.error('A port is taken: set DEMO_PORT / SANDBOX_PORT to free ones.');
  process.exit(1);
}
