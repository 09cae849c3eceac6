/**
 * The wallet `createWallet` returns when its environment is missing (`baseUrl` or `trustedKeys`
 * undefined or empty, as an unset environment variable leaves them): made without throwing, so a
 * module that creates it at import time (a component test, a build without its variables) still
 * loads; it fails when used. Every method that would reach the service or the key store rejects
 * with INVALID_ARGUMENT naming what is missing (`restore()` too, so `<WalletProvider>` reports it);
 * the session store stays `initializing`, nobody is signed in.
 */
import { WalletError } from './errors.js';
import { initialSnapshot } from './session/store.js';
import type { Wallet } from './wallet-api.js';

/** A wallet that refuses every use: `missing` names the config fields (e.g. `config.baseUrl`). */
export function unconfiguredWallet(missing: string[]): Wallet {
  const refuse = (): Promise<never> =>
    Promise.reject(new WalletError('INVALID_ARGUMENT', `createWallet: ${missing.join(' and ')} missing (an environment variable not set?); this wallet cannot be used`, { details: { missing } }));
  const none = (): (() => void) => () => undefined;
  const reads: Partial<Wallet> = { on: none, subscribe: none, getSnapshot: () => initialSnapshot(), session: () => null, sessions: () => [], serverNow: () => Date.now(), dispose: () => undefined };
  return new Proxy(reads, {
    get: (target, key) => (key in target ? target[key as keyof Wallet] : typeof key === 'symbol' || key === 'then' ? undefined : refuse),
  }) as Wallet;
}
