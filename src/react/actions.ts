'use client';
/**
 * `useWalletAction(action)`: any wallet call with a signature (or none) as state: `status`
 * (`idle` → `pending` → `success` or `error`), `data`, `error` with `errorText`, a stable `run` that
 * never rejects, and `reset`. A run overtaken by a later run or by `reset()` is dropped (the latest
 * wins). `useLogout()` is one of them.
 *
 * Under it, the runner every hook with a status uses (the login hooks too): a result that a later
 * run or a reset made stale is dropped; a failure becomes a WalletError with its text
 * (describe.ts), goes to the hook's state and to the provider's `onError`; nothing rejects.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { WalletError } from '../errors.js';
import { useWalletContext, type AnyWallet } from './context.js';
import { describeError } from './describe.js';

/** Any failure as a WalletError (a non-WalletError thrown by the app's own code: SIGNER_FAILED, the original as cause). */
export const asWalletError = (error: unknown): WalletError =>
  error instanceof WalletError ? error : new WalletError('SIGNER_FAILED', error instanceof Error ? error.message : 'failed', { cause: error });

/** Describes `error`, then gives it to `failed` (if any, when `live()`) and to `report`; resolves to undefined. */
export const fail = (report: (error: WalletError, text: string) => void, error: WalletError, failed?: (error: WalletError, text: string) => void, live = (): boolean => true): Promise<undefined> =>
  describeError(error).then((text) => {
    if (live()) failed?.(error, text);
    report(error, text);
    return undefined;
  });

/** `run(work, done, failed)`: `done` or `failed` only while no later run or `stale()` happened. */
export function useRunner(report: (error: WalletError, text: string) => void) {
  const generation = useRef(0);
  const run = useCallback(
    <T>(work: () => Promise<T>, done: (value: T) => void, failed: (error: WalletError, text: string) => void): Promise<T | undefined> => {
      const mine = ++generation.current;
      const live = (): boolean => mine === generation.current;
      // `work` starts synchronously (a passkey ceremony must start inside the click); a throw rejects.
      return new Promise<T>((resolve) => resolve(work())).then(
        (value) => {
          if (live()) done(value);
          return value;
        },
        (error: unknown) => fail(report, asWalletError(error), failed, live),
      );
    },
    [report],
  );
  const stale = useCallback(() => void generation.current++, []);
  return { run, stale };
}


/** Where a wallet action is. */
export type WalletActionStatus = 'idle' | 'pending' | 'success' | 'error';

/** The state of {@link useWalletAction}. */
export interface WalletActionState<T> {
  /** `idle`, `pending` (under way), `success` (`data` set), `error` (`error` set). */
  readonly status: WalletActionStatus;
  /** The last successful run's result (kept while a new run is pending), else undefined. */
  readonly data: T | undefined;
  /** The last run's failure, else null (SIGNING_REFUSED when the user refused the signature). */
  readonly error: WalletError | null;
  /** What to show for `error`: its code's meaning (`describeWalletError`), else its message. */
  readonly errorText: string | null;
}

/** What {@link useWalletAction} returns: its state, `run` and `reset` (both stable). */
export interface WalletActionControls<A extends unknown[], T> extends WalletActionState<T> {
  /** Runs the action with `args`: → pending → success or error; resolves to its result, or undefined when it failed (`error`). */
  run(...args: A): Promise<T | undefined>;
  /** Back to idle; a run under way is ignored when it ends. */
  reset(): void;
}

const IDLE: WalletActionState<never> = { status: 'idle', data: undefined, error: null, errorText: null };

/**
 * A wallet call as state. `action` gets the provider's wallet (a `Wallet`, or in frame mode a
 * `FrameWallet`: the methods both have take the same arguments; in frame mode the call resolves once
 * the user approved it in the signer frame, SIGNER_DECLINED when they declined) and `run`'s
 * arguments; the latest `action` given is the one `run` calls (an inline function is fine).
 * @example
 * const update = useWalletAction((wallet, enabled: boolean) => wallet.updateAccount(accountId, { privateEnabled: enabled }));
 * <button disabled={update.status === 'pending'} onClick={() => void update.run(true)}>Make private</button>
 * {update.errorText && <p role="alert">{update.errorText}</p>}
 */
export function useWalletAction<A extends unknown[], T>(action: (wallet: AnyWallet, ...args: A) => Promise<T>): WalletActionControls<A, T> {
  const { wallet, report } = useWalletContext('useWalletAction');
  const [state, setState] = useState<WalletActionState<T>>(IDLE);
  const latest = useRef(action);
  useEffect(() => void (latest.current = action));
  const runner = useRunner(report);
  const run = useCallback(
    (...args: A) => {
      setState((s) => ({ ...s, status: 'pending', error: null, errorText: null }));
      return runner.run(
        () => latest.current(wallet, ...args),
        (data) => setState({ ...IDLE, status: 'success', data }),
        (error, errorText) => setState({ ...IDLE, status: 'error', error, errorText }),
      );
    },
    [wallet, runner.run],
  );
  const reset = useCallback(() => {
    runner.stale();
    setState(IDLE);
  }, [runner.stale]);
  return { ...state, run, reset };
}

/** `run(accountId?)` logs out (the default account without one), with status and error. */
export function useLogout(): WalletActionControls<[accountId?: string], void> {
  return useWalletAction((wallet, accountId?: string) => wallet.logout(accountId));
}
