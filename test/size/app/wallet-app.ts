// The small app `npm run size` builds with Vite and with Next.js: what an adopter's page does with
// the library. At load: create the wallet and restore the sessions kept in this browser. On a click:
// an email login (start, then verify the code) and one signed action.
import { createWallet, type Wallet } from 'embedded-wallet-signer';

export function startWallet(log: (line: string) => void): { wallet: Wallet; loginAndSign: (accountId: string, code: string) => Promise<void> } {
  const wallet = createWallet({ baseUrl: '/api/wallet', trustedKeys: ['04' + '00'.repeat(64)] });
  wallet.restore().then(
    (sessions) => log(`restored ${sessions.length} session(s)`),
    (error: unknown) => log(`restore failed: ${String(error)}`),
  );
  async function loginAndSign(accountId: string, code: string): Promise<void> {
    const login = await wallet.startOtpLogin({ accountId });
    await login.verify(code);
    await wallet.updateAccount(accountId, { privateEnabled: true });
    log('signed');
  }
  return { wallet, loginAndSign };
}
