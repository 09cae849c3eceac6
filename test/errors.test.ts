import { describe, expect, it } from 'vitest';
import { WalletError, isWalletError, invalidArgument } from '../src/errors.js';
import { WALLET_ERROR_CODES, describeWalletError } from '../src/error-codes.js';

describe('WalletError', () => {
  it('carries a stable code, a set name, status, details and cause', () => {
    const cause = new TypeError('boom');
    const err = new WalletError('WALLET_SIGNATURE_INVALID', 'bad stamp', { status: 401, details: { a: 1 }, cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('WalletError');
    expect(err.code).toBe('WALLET_SIGNATURE_INVALID');
    expect(err.status).toBe(401);
    expect(err.details).toEqual({ a: 1 });
    expect(err.cause).toBe(cause);
    expect(err.message).toBe('bad stamp');
  });

  it('defaults its message to the code, and documents every code of its own', () => {
    const err = new WalletError('KEY_EVICTED');
    expect(err.message).toBe('KEY_EVICTED');
    expect(describeWalletError('KEY_EVICTED')).toBe(WALLET_ERROR_CODES.KEY_EVICTED);
    expect(describeWalletError('QUOTE_EXPIRED')).toBeUndefined();
    for (const text of Object.values(WALLET_ERROR_CODES)) expect(text.length).toBeGreaterThan(10);
    expect('cause' in err).toBe(false);
  });

  it('is recognised by the guard, by code, and by shape from another realm', () => {
    const err = invalidArgument('payloadToSign', 'a string');
    expect(isWalletError(err)).toBe(true);
    expect(isWalletError(err, 'INVALID_ARGUMENT')).toBe(true);
    expect(isWalletError(err, 'TIMEOUT')).toBe(false);
    const foreign = { name: 'WalletError', code: 'TIMEOUT', message: 'x' };
    expect(isWalletError(foreign, 'TIMEOUT')).toBe(true);
    expect(isWalletError(new Error('x'))).toBe(false);
    expect(isWalletError(null)).toBe(false);
    expect(isWalletError('WalletError')).toBe(false);
  });
});
