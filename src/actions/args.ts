/** Argument checks shared by the signed actions, and the default account of an action. */
import { WalletError, invalidArgument } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord } from '../types.js';

/** What an account argument must be, as INVALID_ARGUMENT says it. */
export const ACCOUNT_ID = 'an InternalAccount id';

/** A non-empty string, else INVALID_ARGUMENT naming the argument. */
export function requireString(value: unknown, name: string, expected = 'a non-empty string'): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(name, expected);
  return value;
}

/** An optional non-empty string. */
export function optionalString(value: unknown, name: string, expected = 'a non-empty string'): string | undefined {
  return value === undefined ? undefined : requireString(value, name, expected);
}

/**
 * The account an action acts on: the one given, else the account of the current session (the
 * account used last). The stored sessions are read first if this wallet has not loaded them yet.
 * NOT_LOGGED_IN when neither exists.
 */
export async function accountOf(ctx: WalletContext, accountId: unknown): Promise<string> {
  if (accountId !== undefined) return requireString(accountId, 'accountId', ACCOUNT_ID);
  let known = ctx.sessions.current()?.accountId;
  if (known === undefined) {
    await ctx.sessions.restore();
    known = ctx.sessions.current()?.accountId;
  }
  if (known === undefined) throw new WalletError('NOT_LOGGED_IN', 'no accountId given and no session in this browser: log in first');
  return known;
}

/** An id as a path segment (ids hold ':'). */
export const seg = encodeURIComponent;

/** A service answer that must be a record with a string `id`; BAD_RESPONSE otherwise. */
export function expectRecord<T>(answer: unknown, what: string): T {
  if (!isRecord(answer) || typeof answer.id !== 'string' || answer.id === '') {
    throw new WalletError('BAD_RESPONSE', `expected ${what} with an id`);
  }
  return answer as T;
}
