/**
 * What a promise rejects with, for assertions on failures. Browser-safe (imports nothing of Node), so
 * both the node and the browser test files use it.
 */
import { isWalletError, type WalletError } from '../../src/errors.js';

/** The WalletError `promise` rejects with; a fulfilment, or anything else thrown, fails the test. */
export async function walletErrorOf(promise: Promise<unknown>): Promise<WalletError> {
  try {
    await promise;
  } catch (error) {
    if (isWalletError(error)) return error;
    throw error;
  }
  throw new Error('expected a WalletError');
}

/** The WalletError code a promise rejects with (a description of anything else it rejects with). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? `not a WalletError: ${String(error)}`;
  }
  throw new Error('expected a rejection');
}

/** Whatever a promise rejects with; a fulfilment fails the test. */
export async function errorOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
