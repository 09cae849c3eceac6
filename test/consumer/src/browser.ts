// A browser app's use of the main entry, as the README shows it, plus the type tests of the public
// types (each @ts-expect-error must meet an error, or tsc fails).
import { createWallet, isWalletError, WalletError, type InternalAccount, type InternalAccountPatch, type Wallet, type WalletErrorCode } from 'embedded-wallet-signer';
import { describeWalletError, WALLET_ERROR_CODES } from 'embedded-wallet-signer/error-codes';
import { openSealedSessionKey } from 'embedded-wallet-signer/legacy';

export async function app(accountId: string, code: string): Promise<InternalAccount> {
  const wallet: Wallet = createWallet({ baseUrl: '/api', trustedKeys: ['04'.padEnd(130, '0')] });
  wallet.on('expired', () => undefined);
  await wallet.restore();
  const login = await wallet.startOtpLogin({ accountId });
  await login.verify(code);
  try {
    return await wallet.updateAccount(accountId, { privateEnabled: true });
  } catch (err) {
    if (isWalletError(err, 'SESSION_EXPIRED')) throw new WalletError('NOT_LOGGED_IN');
    if (isWalletError(err, 'INSUFFICIENT_FUNDS')) throw err; // a service code passes too
    throw err;
  }
}

// InternalAccountPatch is closed: a misspelt field does not compile.
// @ts-expect-error privateEnable is not a field of InternalAccountPatch
export const typo: InternalAccountPatch = { privateEnable: true };
export const patch: InternalAccountPatch = { privateEnabled: false };

// InternalAccount has no index signature: an unknown field is an error, a known one is typed.
export function isPrivate(account: InternalAccount): boolean | undefined {
  // @ts-expect-error nickname is not a field of InternalAccount (neither the spec nor the wire reference defines it)
  void account.nickname;
  return account.privateEnabled;
}

// Our own codes are a closed union; describeWalletError reads their meaning.
export const meaning: string = WALLET_ERROR_CODES.DEPENDENCY_MISSING;
export const described: string | undefined = describeWalletError('TIMEOUT');
// @ts-expect-error NOT_A_CODE is not a WalletErrorCode
export const notACode: WalletErrorCode = 'NOT_A_CODE';
export const legacy: typeof openSealedSessionKey = openSealedSessionKey;
