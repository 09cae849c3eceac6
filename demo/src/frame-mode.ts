/**
 * Frame mode in the demo: the wallet's keys, codes and approvals live in the signer page (another
 * origin, `me.signerUrl`); the app holds `embedded-wallet-signer/frame`'s wallet. The screens are
 * written against the in-origin `Wallet`; `asWallet` gives them that shape over the frame wallet:
 * the methods frame mode has are passed through, the others (passkeys, OAuth, export: not in frame
 * mode yet) fail with a WalletError saying so. The login screen uses the frame wallet itself (the
 * code is typed in the frame).
 */
import { WalletError, type Wallet } from '../../src/index.js';
import { createWallet, signerFrame, type FrameWallet } from '../../src/signer/parent/index.js';

export function createFrameWallet(signerUrl: string): FrameWallet {
  return createWallet({ signer: signerFrame({ url: signerUrl }) });
}

const notYet = (what: string) => () => Promise.reject(new WalletError('INVALID_ARGUMENT', `${what} is not available in frame mode yet (DEMO_MODE=in-origin has it)`));

export function asWallet(frame: FrameWallet): Wallet {
  const shaped: Omit<Wallet, symbol> = {
    ...frame,
    startOtpLogin: notYet('a code typed in the app'),
    addSmsOtp: notYet('adding SMS codes'),
    addEmailOtp: notYet('adding email codes'),
    prepareOAuth: notYet('OAuth'),
    completeOAuth: notYet('OAuth'),
    addOAuthCredential: notYet('OAuth'),
    preparePasskeyLogin: notYet('Passkeys'),
    preparePasskeyRegistration: notYet('Passkeys'),
    registerPasskey: notYet('Passkeys'),
    exportWallet: notYet('Export'),
  };
  // No WALLET_CONTEXT: nothing of the frame's wallet is reachable from the app (the legacy entry,
  // which needs it, is offered in in-origin mode only).
  return shaped as Wallet;
}
