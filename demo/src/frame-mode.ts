/**
 * Frame mode in the demo: the wallet's keys, codes and approvals live in the signer page (another
 * origin, `me.signerUrl`); the app holds `embedded-wallet-signer/frame`'s wallet. The screens are
 * written against the in-origin `Wallet`; `asWallet` gives them that shape over the frame wallet:
 * every method both wallets share (sessions, signed actions, passkeys and OAuth, which run in the
 * frame) is passed through. The three whose shape differs in frame mode are used on `app.frame`
 * by their screens: a code login or an added OTP credential (the code is typed in the frame:
 * login.ts, credentials.ts) and the export (the phrase is shown in the frame: actions/export.ts);
 * on the shaped wallet they fail with a WalletError saying so, never silently.
 */
import { WalletError, type Wallet } from '../../src/index.js';
import { createWallet, signerFrame, type FrameWallet } from '../../src/signer/parent/index.js';

export function createFrameWallet(signerUrl: string): FrameWallet {
  return createWallet({ signer: signerFrame({ url: signerUrl }) });
}

const inFrame = (what: string) => () => Promise.reject(new WalletError('INVALID_ARGUMENT', `in frame mode ${what} goes through app.frame (the signer frame shows it)`));

export function asWallet(frame: FrameWallet): Wallet {
  const shaped: Omit<Wallet, symbol> = {
    ...frame,
    startOtpLogin: inFrame('a code login'),
    addSmsOtp: inFrame('adding SMS codes'),
    addEmailOtp: inFrame('adding email codes'),
    exportWallet: inFrame('the export'),
  };
  // No WALLET_CONTEXT: nothing of the frame's wallet is reachable from the app (the legacy entry,
  // which needs it, is offered in in-origin mode only).
  return shaped as Wallet;
}
