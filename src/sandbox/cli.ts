#!/usr/bin/env node
/**
 * `npm run sandbox`, or `npx embedded-wallet-signer-sandbox` (the package's bin): starts the sandbox
 * and prints its URL, the client id in use (never the secret's value) and the enclave key.
 *
 * Environment: SANDBOX_PORT (default 8787; 0 = any free port), SANDBOX_HOST (default 127.0.0.1),
 * SANDBOX_CLIENT_ID / SANDBOX_CLIENT_SECRET (defaults sandbox-client / sandbox-secret),
 * SANDBOX_ORIGIN (WebAuthn origins, comma-separated; default http://localhost:5173),
 * SANDBOX_RP_ID (default localhost), SANDBOX_LOG=off to silence the request log,
 * SANDBOX_PROFILE=service to answer only what the service sends (default sandbox; see profile.ts),
 * SANDBOX_QUOTE_EXECUTE=stamp|signed-retry|either (how quote execution is signed; quote-execute.ts).
 */
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_ORIGIN, DEFAULT_RP_ID, startSandbox } from './server.js';

function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n`);
  process.exit(2);
}

const env = process.env;
const portText = env.SANDBOX_PORT ?? '8787';
if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) fail(`SANDBOX_PORT must be a port number, got "${portText}"`);
const clientId = env.SANDBOX_CLIENT_ID ?? DEFAULT_CLIENT_ID;
const secretFromEnv = env.SANDBOX_CLIENT_SECRET !== undefined && env.SANDBOX_CLIENT_SECRET !== '';
const origins = (env.SANDBOX_ORIGIN ?? DEFAULT_ORIGIN).split(',').map((o) => o.trim()).filter((o) => o !== '');

const sandbox = await startSandbox({
  port: Number(portText),
  host: env.SANDBOX_HOST ?? '127.0.0.1',
  clientId,
  clientSecret: secretFromEnv ? (env.SANDBOX_CLIENT_SECRET as string) : DEFAULT_CLIENT_SECRET,
  origin: origins,
  rpId: env.SANDBOX_RP_ID ?? DEFAULT_RP_ID,
  ...(env.SANDBOX_LOG === 'off' ? { log: false as const } : {}),
}).catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));

process.stdout.write(
  [
    `sandbox listening: ${sandbox.url}`,
    `profile: ${sandbox.profile}${sandbox.profile === 'service' ? ' (answers carry only what the service sends)' : ''}`,
    `quote execute: ${sandbox.quoteExecute}`,
    `client id: ${clientId}`,
    `client secret: ${secretFromEnv ? 'from SANDBOX_CLIENT_SECRET (not shown)' : 'the default (see README)'}`,
    `webauthn: origin ${origins.join(', ')}, rpId ${env.SANDBOX_RP_ID ?? DEFAULT_RP_ID}`,
    `enclave public key: ${sandbox.enclavePublicKey}`,
    '',
  ].join('\n'),
);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
