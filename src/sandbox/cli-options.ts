/**
 * The sandbox bin's command line (cli.ts): named options, each with the environment variable it
 * overrides, and `--help`. Parsing only: no I/O but reading `existsSync` for the default key file's
 * place. The client secret is read from the environment only (a command line is visible to every
 * user of the machine).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EnclaveKeyOption } from './enclave-key.js';
import { SANDBOX_PROFILES, type SandboxProfile } from './profile.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_ORIGIN, DEFAULT_RP_ID, type SandboxOptions } from './server.js';

export const USAGE = `Usage: embedded-wallet-signer-sandbox [options]

Starts a local sandbox of the payments service and prints its URL, the client id and the enclave
public key (what the app trusts: createWallet({ trustedKeys: [key] })).

Options (each overrides its environment variable):
  -p, --port <n>               port; 0 = any free port            SANDBOX_PORT (8787)
      --host <address>         interface to bind                  SANDBOX_HOST (127.0.0.1)
      --origin <url>           WebAuthn origin; repeat, or commas  SANDBOX_ORIGIN (${DEFAULT_ORIGIN})
      --rp-id <id>             WebAuthn relying-party id          SANDBOX_RP_ID (${DEFAULT_RP_ID})
      --top-origin <url>       top origin of a ceremony in a frame of another origin
                               (the app embedding the signer); repeat, or commas
                                                                  SANDBOX_TOP_ORIGIN (none)
      --client-id <id>         platform client id (HTTP Basic)    SANDBOX_CLIENT_ID (${DEFAULT_CLIENT_ID})
                               the secret: SANDBOX_CLIENT_SECRET only (default ${DEFAULT_CLIENT_SECRET})
      --enclave-key-file <f>   keep the enclave key in this PEM file (made when missing)
                                                                  SANDBOX_ENCLAVE_KEY_FILE
      --enclave-seed <text>    derive the enclave key from this text (the same everywhere;
                               not a secret)                      SANDBOX_ENCLAVE_SEED
      --new-enclave-key        a new enclave key at every start
      --profile <name>         ${SANDBOX_PROFILES.join(' | ')}       SANDBOX_PROFILE (sandbox)
  (quote execution: SANDBOX_QUOTE_EXECUTE = stamp | signed-retry | either; quote-execute.ts)
      --quiet                  no request log                     SANDBOX_LOG=off
  -h, --help                   this text

The enclave key: by default kept in node_modules/.cache/embedded-wallet-signer/sandbox-enclave-key.pem
under the current directory (~/.cache/embedded-wallet-signer/ without node_modules), so it stays the
same across restarts; with NODE_ENV=production, a new one at every start unless a file or seed is
given. A sandbox key is for development: never trust it in production.
`;

/** What the command line asks for. */
export type CliRequest = { help: true } | { help: false; options: SandboxOptions & { port: number }; clientSecretFromEnv: boolean };

/** The default key file for `cwd` (see USAGE). */
export function defaultEnclaveKeyFile(cwd: string, home: string = homedir()): string {
  const modules = join(cwd, 'node_modules');
  return join(existsSync(modules) ? join(modules, '.cache') : join(home, '.cache'), 'embedded-wallet-signer', 'sandbox-enclave-key.pem');
}

/** Parses `argv` (without node and the script) over `env`; throws an Error with a message for the user. */
export function parseCli(argv: string[], env: Record<string, string | undefined>, cwd: string): CliRequest {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'rp-id': { type: 'string' },
      'top-origin': { type: 'string', multiple: true },
      'client-id': { type: 'string' },
      'enclave-key-file': { type: 'string' },
      'enclave-seed': { type: 'string' },
      'new-enclave-key': { type: 'boolean' },
      profile: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const portText = values.port ?? env.SANDBOX_PORT ?? '8787';
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) throw new Error(`${values.port !== undefined ? '--port' : 'SANDBOX_PORT'} must be a port number, got "${portText}"`);
  const origins = (values.origin ?? [env.SANDBOX_ORIGIN ?? DEFAULT_ORIGIN]).flatMap((o) => o.split(',')).map((o) => o.trim()).filter((o) => o !== '');
  if (origins.length === 0) throw new Error('--origin needs at least one origin');
  const topOrigins = (values['top-origin'] ?? (env.SANDBOX_TOP_ORIGIN !== undefined ? [env.SANDBOX_TOP_ORIGIN] : [])).flatMap((o) => o.split(',')).map((o) => o.trim()).filter((o) => o !== '');
  const profile = values.profile ?? env.SANDBOX_PROFILE;
  if (profile !== undefined && !(SANDBOX_PROFILES as readonly string[]).includes(profile)) throw new Error(`--profile must be one of ${SANDBOX_PROFILES.join(', ')}, got "${profile}"`);
  const file = values['enclave-key-file'] ?? env.SANDBOX_ENCLAVE_KEY_FILE;
  const seed = values['enclave-seed'] ?? env.SANDBOX_ENCLAVE_SEED;
  const chosen = [file !== undefined, seed !== undefined, values['new-enclave-key'] === true].filter(Boolean).length;
  if (chosen > 1) throw new Error('give one of --enclave-key-file, --enclave-seed, --new-enclave-key');
  if (file === '' || seed === '') throw new Error('--enclave-key-file and --enclave-seed need a value');
  let enclaveKey: EnclaveKeyOption | undefined;
  if (file !== undefined) enclaveKey = { file };
  else if (seed !== undefined) enclaveKey = { seed };
  else if (values['new-enclave-key'] !== true && env.NODE_ENV !== 'production') enclaveKey = { file: defaultEnclaveKeyFile(cwd) };
  const secret = env.SANDBOX_CLIENT_SECRET;
  const clientSecretFromEnv = secret !== undefined && secret !== '';
  return {
    help: false,
    clientSecretFromEnv,
    options: {
      port: Number(portText),
      host: values.host ?? env.SANDBOX_HOST ?? '127.0.0.1',
      clientId: values['client-id'] ?? env.SANDBOX_CLIENT_ID ?? DEFAULT_CLIENT_ID,
      clientSecret: clientSecretFromEnv ? secret : DEFAULT_CLIENT_SECRET,
      origin: origins,
      rpId: values['rp-id'] ?? env.SANDBOX_RP_ID ?? DEFAULT_RP_ID,
      ...(topOrigins.length > 0 ? { topOrigin: topOrigins } : {}),
      ...(profile !== undefined ? { profile: profile as SandboxProfile } : {}),
      ...(values.quiet === true || env.SANDBOX_LOG === 'off' ? { log: false as const } : {}),
      ...(enclaveKey ? { enclaveKey } : {}),
    },
  };
}
