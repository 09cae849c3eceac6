#!/usr/bin/env node
/**
 * `npm run sandbox`, or `npx embedded-wallet-signer-sandbox` (the package's bin): starts the sandbox
 * and prints its URL, the client id in use (never the secret's value) and the enclave key with
 * where it is kept. Options and their environment variables: `--help` (cli-options.ts).
 */
import { parseCli, USAGE } from './cli-options.js';
import { startSandbox } from './server.js';

function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n(--help for the options)\n`);
  process.exit(2);
}

let request: ReturnType<typeof parseCli>;
try {
  request = parseCli(process.argv.slice(2), process.env, process.cwd());
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
if (request.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const { options, clientSecretFromEnv } = request;
const sandbox = await startSandbox(options).catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));

// The stop handlers are in place before anything is printed: a parent that stops the sandbox as
// soon as it reads the key (as the tests do) must get a clean exit 0, not a kill by SIGTERM.
const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

process.stdout.write(
  [
    `sandbox listening: ${sandbox.url}`,
    `profile: ${sandbox.profile}${sandbox.profile === 'service' ? ' (answers carry only what the service sends)' : ''}`,
    `quote execute: ${sandbox.quoteExecute}`,
    `client id: ${options.clientId}`,
    `client secret: ${clientSecretFromEnv ? 'from SANDBOX_CLIENT_SECRET (not shown)' : 'the default (see README)'}`,
    `webauthn: origin ${(options.origin as string[]).join(', ')}, rpId ${options.rpId}`,
    `enclave public key: ${sandbox.enclavePublicKey}`,
    `enclave key: ${sandbox.enclaveKeySource}`,
    '',
  ].join('\n'),
);
