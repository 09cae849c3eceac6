'use client';
/**
 * Headless login hooks: each a small state machine over a wallet flow, with stable action
 * callbacks (the same functions for the component's life) and no markup. A step's result that
 * arrives after `reset()` is dropped; one that arrives while the component is hidden (`<Activity>`)
 * or its effects re-run (StrictMode, Fast Refresh) is kept and shown. Errors are WalletErrors in
 * `error`, never a rejection: an action called too early (`verify()` before `start()`, `resend()`
 * before `resendAt`, `login()` before `prepare()`) resolves to undefined with the error in state.
 *
 * - useOtpLogin: idle → sending → awaiting-code → verifying → done, or error. A wrong code
 *   (OTP_CODE_INVALID) goes back to awaiting-code with the error, to retype. `resend()` is refused
 *   until `resendAt` (server-side rate limits still answer RATE_LIMITED). In frame mode
 *   (`codeEntry: 'frame'`) the code is typed in the signer frame: awaiting-code → done.
 * - usePasskeyLogin: idle → preparing → ready → verifying → done, or error; call `login()` from
 *   the user's click (the ceremony must start inside it).
 * - useOAuthLogin: idle → preparing → ready (with `nonce` for the IdP) → verifying → done, or error.
 */
import { useCallback, useRef, useState } from 'react';
import { WalletError } from '../errors.js';
import type { OAuthLogin } from '../flows/oauth.js';
import type { StartOtpLoginArgs } from '../flows/otp.js';
import type { PasskeyLogin } from '../flows/passkey.js';
import type { Session } from '../session/types.js';
import type { SharedOtpLogin, SharedWallet } from '../shared-wallet.js';
import { useWalletContext } from './context.js';
import { fail, useRunner } from './actions.js';

/** The steps of a login hook. */
export type LoginStep = 'idle' | 'sending' | 'preparing' | 'awaiting-code' | 'ready' | 'verifying' | 'done' | 'error';

/** The state every login hook returns. */
export interface LoginState {
  /** Where the login is. */
  readonly step: LoginStep;
  /** The last failure (kept on `awaiting-code` after a wrong code), else null. */
  readonly error: WalletError | null;
  /** What to show for `error`: its code's meaning (`describeWalletError`), else its message; null without one. */
  readonly errorText: string | null;
  /** The session, once `done`. */
  readonly session: Session | null;
}

const IDLE: LoginState = { step: 'idle', error: null, errorText: null, session: null };

/** The provider's wallet, and state plus a runner that drops what a reset made stale (after an unmount React drops the update itself). */
function useSteps<S extends LoginState>(hook: string, initial: S) {
  const { wallet, report } = useWalletContext(hook);
  const [state, setState] = useState<S>(initial);
  const runner = useRunner(report);
  const run = useCallback(
    <T>(busy: Partial<S>, work: () => Promise<T>, after: (value: T) => Partial<S>, failed?: (error: WalletError) => Partial<S> | undefined): Promise<T | undefined> => {
      setState((s) => ({ ...s, ...busy, error: null, errorText: null }));
      return runner.run(
        work,
        // `after` runs when the step ends (it may keep what the next action needs), not in an updater.
        (value) => {
          const patch = after(value);
          setState((s) => ({ ...s, error: null, errorText: null, ...patch }));
        },
        (e, errorText) => {
          const patch = failed?.(e) ?? { step: 'error' };
          setState((s) => ({ ...s, ...patch, error: e, errorText }));
        },
      );
    },
    [runner.run],
  );
  const reset = useCallback(() => {
    runner.stale();
    setState(initial);
    // initial is a constant of the hook
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  /** An action refused before it started: `error` set (and `step`, else the step stays), nothing rejects; a step under way goes on. */
  const refuse = useCallback(
    (error: WalletError, step?: LoginStep): Promise<undefined> => fail(report, error, (e, errorText) => setState((s) => ({ ...s, step: step ?? s.step, error: e, errorText }))),
    [report],
  );
  return { wallet, state, run, reset, refuse };
}

/** State of {@link useOtpLogin}. */
export interface OtpLoginState extends LoginState {
  /** The credential the code went to, once sent. */
  readonly credentialId: string | null;
  /** When `resend()` is allowed again (epoch ms, this browser's clock), or null. */
  readonly resendAt: number | null;
  /**
   * Where the user types the code, once sent: `app` (your form calls `verify(code)`), or `frame`
   * (frame mode: the hook opens the signer frame's code entry itself and stays `awaiting-code` until
   * the user typed a right code there; a Cancel there is SIGNER_DECLINED, still awaiting-code, and
   * `verify()` with no code opens the entry again). Null before a code was sent.
   */
  readonly codeEntry: 'app' | 'frame' | null;
}

/** What {@link useOtpLogin} returns: its state and stable actions. */
export interface OtpLoginControls extends OtpLoginState {
  /** Sends the code (email by default): → sending → awaiting-code. `{ email }` / `{ phone }` alone with the proxy's email-first login mode. */
  start(args: StartOtpLoginArgs): Promise<void>;
  /**
   * Checks the code: → verifying → done (or back to awaiting-code on a wrong code); resolves to the
   * session, or undefined when it failed (`error`). With `codeEntry: 'frame'`, no code: the frame
   * asks for it (a code given here is INVALID_ARGUMENT: it would be readable by the app's scripts).
   */
  verify(code?: string): Promise<Session | undefined>;
  /** Sends a new code (before `resendAt`: `error` RATE_LIMITED, still awaiting-code). */
  resend(): Promise<void>;
  /** Back to idle; a step under way is ignored when it ends. */
  reset(): void;
}

const OTP_IDLE: OtpLoginState = { ...IDLE, credentialId: null, resendAt: null, codeEntry: null };

/**
 * An email/SMS code login as a state machine, over either wallet (in frame mode the code is typed
 * in the signer frame: `codeEntry`). `resendAfterMs`: wait before `resend()` (default 30 s).
 */
export function useOtpLogin(options: { resendAfterMs?: number } = {}): OtpLoginControls {
  const steps = useSteps('useOtpLogin', OTP_IDLE);
  const { state, run, reset, refuse } = steps;
  // Both wallets start a code login alike (SharedWallet); only where the code is typed differs.
  const wallet: SharedWallet = steps.wallet;
  const login = useRef<SharedOtpLogin | null>(null);
  const after = useRef(0);
  after.current = options.resendAfterMs ?? 30_000;
  const resendAt = useRef(0);
  const sent = (): Partial<OtpLoginState> => {
    resendAt.current = Date.now() + after.current;
    const l = login.current;
    return { step: 'awaiting-code', credentialId: l?.credentialId ?? null, resendAt: resendAt.current, codeEntry: l?.codeEntry ?? 'app' };
  };
  // In frame mode `verify()` opens the frame's code entry (or waits on the one open) and the code is
  // awaited there; the user's Cancel (SIGNER_DECLINED) leaves the login awaiting its code.
  const check = useCallback(
    (l: SharedOtpLogin, code?: string) =>
      run<Session>({ step: l.codeEntry ? 'awaiting-code' : 'verifying' }, () => l.verify(code), (session) => ({ step: 'done', session }), (e) => (e.code === 'OTP_CODE_INVALID' || e.code === 'SIGNER_DECLINED' ? { step: 'awaiting-code' } : undefined)),
    [run],
  );

  const start = useCallback(async (args: StartOtpLoginArgs) => {
    const l = await run<SharedOtpLogin>({ step: 'sending' }, () => wallet.startOtpLogin(args), (l) => ((login.current = l), sent()));
    // Frame mode: the frame's code entry opens at once (the user types the code there).
    if (l?.codeEntry && login.current === l) void check(l);
    // `sent` reads refs only
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wallet, run, check]);
  const verify = useCallback(
    (code?: string) => {
      const l = login.current;
      if (!l) return refuse(new WalletError('INVALID_ARGUMENT', 'verify() before start()'), 'error');
      // Refused before anything runs: the frame's entry stays open and its answer still counts.
      if (l.codeEntry && code !== undefined) return refuse(new WalletError('INVALID_ARGUMENT', 'frame mode: the code is typed in the signer frame'));
      return check(l, code);
    },
    [check, refuse],
  );
  const resend = useCallback(async () => {
    const l = login.current;
    if (!l) return void (await refuse(new WalletError('INVALID_ARGUMENT', 'resend() before start()'), 'error'));
    const wait = resendAt.current - Date.now();
    if (wait > 0) return void (await refuse(new WalletError('RATE_LIMITED', `resend in ${Math.ceil(wait / 1000)} s`, { details: { retryAfterMs: wait } })));
    await run<void>({ step: 'sending' }, () => l.resend(), sent, () => ({ step: 'awaiting-code' }));
    // Frame mode: wait on the frame's code entry again (still open, or opened for the new code).
    if (l.codeEntry && login.current === l) void check(l);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [run, refuse, check]);
  const resetAll = useCallback(() => {
    login.current = null;
    reset();
  }, [reset]);
  return { ...state, start, verify, resend, reset: resetAll };
}

/** What {@link usePasskeyLogin} returns. */
export interface PasskeyLoginControls extends LoginState {
  /** Fetches the challenge (do it before the click): → preparing → ready. */
  prepare(args: { accountId: string; credentialId?: string }): Promise<void>;
  /** Runs the ceremony; call it from the user's click: → verifying → done; resolves to the session, or undefined when it failed (`error`). */
  login(): Promise<Session | undefined>;
  /** Back to idle. */
  reset(): void;
}

/** A passkey login as a state machine. */
export function usePasskeyLogin(): PasskeyLoginControls {
  const { wallet, state, run, reset, refuse } = useSteps('usePasskeyLogin', IDLE);
  const prepared = useRef<PasskeyLogin | null>(null);
  const prepare = useCallback(async (args: { accountId: string; credentialId?: string }) => {
    await run<PasskeyLogin>({ step: 'preparing' }, () => wallet.preparePasskeyLogin(args), (p) => ((prepared.current = p), { step: 'ready' }));
  }, [wallet, run]);
  const login = useCallback(() => {
    const p = prepared.current;
    if (!p) return refuse(new WalletError('INVALID_ARGUMENT', 'login() before prepare()'), 'error');
    // The ceremony starts synchronously inside this call (inside the click).
    return run<Session>({ step: 'verifying' }, () => p.login(), (session) => ({ step: 'done', session }));
  }, [run, refuse]);
  return { ...state, prepare, login, reset };
}

/** What {@link useOAuthLogin} returns. */
export interface OAuthLoginControls extends LoginState {
  /** The nonce to put in the IdP's authorization request, once `ready`. */
  readonly nonce: string | null;
  /** Makes the session key and its nonce: → preparing → ready. */
  prepare(args: { accountId: string }): Promise<string | undefined>;
  /** Finishes with the IdP's ID token (same page, or after a redirect): → verifying → done; resolves to the session, or undefined when it failed (`error`). */
  complete(oidcToken: string, credentialId?: string): Promise<Session | undefined>;
  /** Back to idle. */
  reset(): void;
}

/** An OAuth (OIDC) login as a state machine. */
export function useOAuthLogin(): OAuthLoginControls {
  const { wallet, state, run, reset } = useSteps<LoginState & { nonce: string | null }>('useOAuthLogin', { ...IDLE, nonce: null });
  const prepared = useRef<OAuthLogin | null>(null);
  const prepare = useCallback(async (args: { accountId: string }) => {
    const p = await run<OAuthLogin>({ step: 'preparing' }, () => wallet.prepareOAuth(args), (o) => ((prepared.current = o), { step: 'ready', nonce: o.nonce }));
    return p?.nonce;
  }, [wallet, run]);
  const complete = useCallback((oidcToken: string, credentialId?: string) => {
    const p = prepared.current;
    // After a redirect nothing was prepared in this page: the key is found by the token's nonce.
    const work = (): Promise<Session> => (p ? p.complete(oidcToken, credentialId) : wallet.completeOAuth(credentialId === undefined ? { oidcToken } : { oidcToken, credentialId }));
    return run<Session>({ step: 'verifying' }, work, (session) => ({ step: 'done', session }));
  }, [wallet, run]);
  return { ...state, prepare, complete, reset };
}
