'use client';
/**
 * createTestFrameWallet (embedded-wallet-signer/react/testing): the test double of an app in frame
 * mode (`embedded-wallet-signer/frame`'s `FrameWallet`), for the same `<WalletProvider>` and hooks.
 * The session is driven as with `createTestWallet` (testing-core.ts); what the user does in the
 * signer frame is the test's part: typing the code in the frame's code entry (`login.verify()` takes
 * no code, `codeEntry: 'frame'`), approving or declining each signature of a user's action. As in the
 * real frame (src/signer/THREAT-MODEL.md P1), a refresh and a login's own verify are signed without
 * a click, and the app has no `signatures` queue to answer for the user.
 *
 * @example
 * const t = createTestFrameWallet();
 * render(<WalletProvider wallet={t.wallet}><App /></WalletProvider>);
 * // …the app starts a code login: useOtpLogin's step is 'awaiting-code', codeEntry 'frame'…
 * t.typeCode('000000'); // the user, in the frame
 * // …the app asks for a signed action…
 * expect(t.approvals.map((a) => a.purpose)).toEqual(['update-internal-account']);
 * t.approve();
 */
import { WalletError } from '../errors.js';
import type { Session } from '../session/types.js';
import type { FrameOtpLogin, FrameWallet } from '../signer/parent/frame-wallet.js';
import { createTestCore, doubleOf, withControls, type TestWalletBaseOptions, type TestWalletControls } from './testing-core.js';

/** Options of {@link createTestFrameWallet}. */
export interface TestFrameWalletOptions extends TestWalletBaseOptions {
  /** Methods to replace (e.g. `addSmsOtp`); the others that need a service reject. */
  overrides?: Partial<FrameWallet>;
}

/** A signature waiting for the user in the frame: what it is for and what it signs. */
export interface FrameApproval {
  /** What the signature is for (the wallet's purpose, e.g. `update-internal-account`). */
  readonly purpose: string;
  /** What the action sends (the frame describes it to the user). */
  readonly payload: unknown;
}

/** What {@link createTestFrameWallet} returns: the wallet, and the test's controls of the session and of the frame. */
export interface TestFrameWallet extends TestWalletControls {
  /** A FrameWallet to give `<WalletProvider>` (no `signatures`: the frame asks the user). */
  readonly wallet: FrameWallet;
  /** Whether the frame's code entry is open (a `login.verify()` waits on the user). */
  readonly codeEntryOpen: boolean;
  /**
   * The user types `code` in the frame's code entry: true when it is right (the waiting `verify()`
   * resolves to the new session); a wrong one is told in the frame, whose entry stays open (false).
   */
  typeCode(code: string): boolean;
  /** The user cancels the frame's code entry: the waiting `verify()` rejects with SIGNER_DECLINED. */
  cancelCode(): void;
  /** The signatures waiting for the user in the frame, oldest first. */
  readonly approvals: readonly FrameApproval[];
  /** The user approves the oldest waiting signature: its call goes on. */
  approve(): void;
  /** The user declines the oldest waiting signature: its call rejects with SIGNER_DECLINED. */
  decline(): void;
}

interface Waiting extends FrameApproval {
  resolve(): void;
  reject(error: WalletError): void;
}

/** The frame's code entry while it is open: the login it signs in, and the verify() waiting on it. */
interface CodeEntry {
  login(): Session;
  readonly promise: Promise<Session>;
  resolve(session: Session): void;
  reject(error: WalletError): void;
}

const declined = (): WalletError => new WalletError('SIGNER_DECLINED', 'the user declined in the signer frame');

/** A frame-mode wallet double for component tests (see the module's example). */
export function createTestFrameWallet(options: TestFrameWalletOptions = {}): TestFrameWallet {
  const waiting: Waiting[] = [];
  const signed = (purpose: string, payload: unknown): Promise<void> => new Promise((resolve, reject) => waiting.push({ purpose, payload, resolve, reject }));
  const oldest = (): Waiting => {
    const first = waiting.shift();
    if (first === undefined) throw new WalletError('INVALID_ARGUMENT', 'no signature waits in the frame');
    return first;
  };
  // The frame signs a refresh and a login's own verify without a click (THREAT-MODEL P1).
  const { controls, base, code, latency, needsSession } = createTestCore(options, { signed, signedWithoutClick: () => Promise.resolve() });
  let entry: CodeEntry | null = null;

  function login(accountId: string | undefined, type: FrameOtpLogin['type']): FrameOtpLogin {
    let used = false;
    const me = (): Session => (used = true, controls.signIn(accountId === undefined ? {} : { accountId }));
    return {
      credentialId: 'AuthMethod:test',
      type,
      codeEntry: 'frame',
      verify(...args: unknown[]) {
        if (args[0] !== undefined) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'in frame mode the user types the code in the signer frame: call verify() with no code'));
        if (used) return Promise.reject(new WalletError('OTP_EXPIRED'));
        // While the entry is open, another verify() waits on the same one.
        if (entry !== null) return entry.promise;
        let resolve!: (session: Session) => void;
        let reject!: (error: WalletError) => void;
        const promise = new Promise<Session>((res, rej) => ((resolve = res), (reject = rej)));
        entry = { login: me, promise, resolve, reject };
        return promise;
      },
      async resend() {
        await latency();
        used = false;
      },
    };
  }

  const methods: Partial<FrameWallet> = {
    ...base,
    mode: 'frame',
    async startOtpLogin(args) {
      await latency();
      // Email-first ({ email } / { phone }): the double's one account, as the backend would find it.
      const accountId = 'accountId' in args ? args.accountId : undefined;
      return login(accountId, 'accountId' in args ? (args.type ?? 'EMAIL_OTP') : 'phone' in args ? 'SMS_OTP' : 'EMAIL_OTP');
    },
    async exportWallet(accountId) {
      const session = needsSession();
      await signed('export-wallet', { accountId: accountId ?? session.accountId });
      return { shown: true };
    },
    ...options.overrides,
  };

  return withControls(controls, {
    wallet: doubleOf<FrameWallet>(methods),
    get codeEntryOpen() {
      return entry !== null;
    },
    typeCode(typed: string) {
      if (entry === null) throw new WalletError('INVALID_ARGUMENT', 'no code entry is open in the frame');
      if (typed.trim() !== code) return false;
      const open = entry;
      entry = null;
      open.resolve(open.login());
      return true;
    },
    cancelCode() {
      const open = entry;
      entry = null;
      open?.reject(declined());
    },
    get approvals() {
      return waiting.map(({ purpose, payload }) => ({ purpose, payload }));
    },
    approve: () => oldest().resolve(),
    decline: () => oldest().reject(declined()),
  });
}
