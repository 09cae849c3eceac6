/**
 * The sandbox's server-only libraries, which are optional peer dependencies of the package (a
 * browser app that installs embedded-wallet-signer does not get them): @hpke/core (the enclave's
 * HPKE), @simplewebauthn/server (passkey attestations and assertions) and @scure/bip39 (the
 * mnemonic word list). Loaded here, once, by dynamic import; a missing one is
 * `WalletError('DEPENDENCY_MISSING')` naming the packages to install. `startSandbox` loads them
 * all before it listens, so a missing peer fails at start, not on the first passkey request.
 */
import { WalletError } from '../errors.js';

type Importer<T> = () => Promise<T>;

/** True when `error` says that `name` itself (not one of its own imports) could not be found. */
export function isMissingPackage(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`'${name}/`) || message.includes(`"${name}"`) || message.includes(`/node_modules/${name}/`));
}

/** The error for missing peers: the message is the install command. */
export function dependencyMissing(packages: readonly string[], cause?: unknown): WalletError {
  const list = packages.join(' ');
  return new WalletError(
    'DEPENDENCY_MISSING',
    `The sandbox needs ${packages.join(', ')}, optional peer dependencies of embedded-wallet-signer that are not installed: npm install --save-dev ${list}`,
    { details: { packages: [...packages] }, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * Loads the package `name` with `importer` once (the promise is kept; a failure is not, so a
 * later call tries again). A missing package → `WalletError('DEPENDENCY_MISSING')`; any other
 * failure (the package is there but broken) is rethrown as it is.
 */
export function peer<T>(name: string, importer: Importer<T>): Importer<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= importer().catch((e: unknown) => {
      loading = undefined;
      throw isMissingPackage(e, name) ? dependencyMissing([name], e) : e;
    });
    return loading;
  };
}

export const hpkeCore = peer('@hpke/core', () => import('@hpke/core'));
export const webauthnServer = peer('@simplewebauthn/server', () => import('@simplewebauthn/server'));
export const bip39English = peer('@scure/bip39', async () => (await import('@scure/bip39/wordlists/english.js')).wordlist);

/** Loads every peer; the missing ones → one `DEPENDENCY_MISSING` that names them all. */
export async function loadSandboxPeers(loaders: ReadonlyArray<readonly [string, Importer<unknown>]> = [
  ['@hpke/core', hpkeCore],
  ['@simplewebauthn/server', webauthnServer],
  ['@scure/bip39', bip39English],
]): Promise<void> {
  const results = await Promise.allSettled(loaders.map(([, load]) => load()));
  const missing: string[] = [];
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') continue;
    const reason: unknown = result.reason;
    if (reason instanceof WalletError && reason.code === 'DEPENDENCY_MISSING') missing.push((loaders[i] as readonly [string, unknown])[0]);
    else throw reason;
  }
  if (missing.length > 0) throw dependencyMissing(missing);
}
