'use client';
/**
 * embedded-wallet-signer/react/testing: a wallet for an app's component tests, without a network
 * or a key store. The test drives the session (signed in, expiring, refreshing, signed out for any
 * reason, from this tab or another) and the signatures the app is asked to confirm; the snapshot
 * comes from the same session store as a real wallet's.
 *
 * @example
 * const t = createTestWallet();
 * render(<WalletProvider wallet={t.wallet} signatures={t.signatures}><App /></WalletProvider>);
 * t.signIn({ accountId: 'InternalAccount:1' });
 * const answer = t.requestSignature({ purpose: 'execute-quote', payload: { amount: 5 } });
 * // …the app shows its confirmation; the test clicks "Approve"…
 * expect(await answer).toBe(true);
 *
 * An app in frame mode (`embedded-wallet-signer/frame`) tests with {@link createTestFrameWallet}:
 * the same session controls, and the user's part in the signer frame (typing the code, approving)
 * played by the test.
 */
import { WalletError } from '../errors.js';
import type { OnBeforeSign } from '../transport/index.js';
import type { Wallet } from '../wallet.js';
import { createSignatureRequests, type SignatureRequests, type SignatureRequestsOptions } from './signatures.js';
import { createTestCore, doubleOf, withControls, type TestWalletBaseOptions, type TestWalletControls } from './testing-core.js';

/** Options of {@link createTestWallet}. */
export interface TestWalletOptions extends TestWalletBaseOptions {
  /** Methods to replace (e.g. `updateAccount` resolving a fixture); the others that need a service reject. */
  overrides?: Partial<Wallet>;
  /** Options of the signature queue (its automatic policy). */
  signatures?: SignatureRequestsOptions;
}

/** What {@link createTestWallet} returns: the wallet, its signature queue, and the test's controls. */
export interface TestWallet extends TestWalletControls {
  /** A Wallet to give `<WalletProvider>`. */
  readonly wallet: Wallet;
  /** Its signature queue, for `<WalletProvider signatures>`. */
  readonly signatures: SignatureRequests;
  /** Asks for a signature as one of the app's calls would: resolves to the answer (true: approved). */
  requestSignature(args: { purpose: string; payload: unknown; automatic?: boolean; signal?: AbortSignal }): Promise<boolean>;
}

/** A wallet double for component tests (see the module's example). In frame mode: {@link createTestFrameWallet}. */
export function createTestWallet(options: TestWalletOptions = {}): TestWallet {
  const signatures = createSignatureRequests(options.signatures);
  const signed = (purpose: string, payload: unknown): Promise<void> =>
    requestSignature({ purpose, payload }).then((ok) => {
      if (!ok) throw new WalletError('SIGNING_REFUSED');
    });
  async function requestSignature(args: { purpose: string; payload: unknown; automatic?: boolean; signal?: AbortSignal }): Promise<boolean> {
    const hook: OnBeforeSign = signatures.onBeforeSign;
    const answer = await hook({
      payloadToSign: typeof args.payload === 'string' ? args.payload : JSON.stringify(args.payload),
      method: 'POST',
      path: '/test',
      purpose: args.purpose,
      leg: 2,
      automatic: args.automatic === true,
      signal: args.signal ?? new AbortController().signal,
    });
    return answer !== false;
  }
  // In-origin every signature goes through the app's onBeforeSign, a refresh's and a login's too.
  const { controls, base, code, latency } = createTestCore(options, { signed, signedWithoutClick: signed });
  const methods: Partial<Wallet> = {
    ...base,
    async startOtpLogin(args) {
      await latency();
      // Email-first ({ email } / { phone }): the double's one account, as the backend would find it.
      const accountId = 'accountId' in args ? args.accountId : undefined;
      const type = 'accountId' in args ? (args.type ?? 'EMAIL_OTP') : 'phone' in args ? 'SMS_OTP' : 'EMAIL_OTP';
      let used = false;
      return {
        credentialId: 'AuthMethod:test',
        type,
        async verify(typed) {
          await latency();
          if (used) throw new WalletError('OTP_EXPIRED');
          if (typed.trim() !== code) throw new WalletError('OTP_CODE_INVALID', 'wrong code', { status: 401 });
          used = true;
          // As the real login: the verify is signed with the new key, through onBeforeSign.
          await signed('otp-verify', { type, credentialId: 'AuthMethod:test' });
          return controls.signIn(accountId === undefined ? {} : { accountId });
        },
        async resend() {
          await latency();
          used = false;
        },
      };
    },
    ...options.overrides,
  };
  return withControls(controls, { wallet: doubleOf<Wallet>(methods), signatures, requestSignature });
}

export { createTestFrameWallet, type TestFrameWallet, type TestFrameWalletOptions, type FrameApproval } from './testing-frame.js';
export type { TestWalletBaseOptions, TestWalletControls } from './testing-core.js';
export { createSignatureRequests } from './signatures.js';
