'use client';
/**
 * The text a hook's error carries: its code's documented meaning (`describeWalletError`, from
 * `embedded-wallet-signer/error-codes`), else the error's own message (a service code). The
 * descriptions are loaded on the first error, not with the hooks: they weigh more than the hooks.
 */
import type { WalletError } from '../errors.js';

let loading: Promise<(code: string) => string | undefined> | undefined;

/** What to show the user for `error` (never rejects). */
export function describeError(error: WalletError): Promise<string> {
  loading ??= import('../error-codes.js').then(
    (m) => m.describeWalletError,
    () => () => undefined,
  );
  return loading.then((describe) => describe(error.code) ?? error.message);
}
