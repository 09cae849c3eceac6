// The small app `npm run size` builds with each bundler: what an adopter's page does with the
// library. At load: open the wallet (./scenario.ts, generated per scenario by
// scripts/size-consumers.mjs from scripts/size-scenarios.mjs) and restore the sessions kept in this
// browser. On a click: an email login (start, then verify the code) and one signed action.
import { openWallet, verifyCode } from './scenario';

export function startWallet(log: (line: string) => void): { wallet: ReturnType<typeof openWallet>; loginAndSign: (accountId: string, code: string) => Promise<void> } {
  const wallet = openWallet();
  wallet.restore().then(
    (sessions) => log(`restored ${sessions.length} session(s)`),
    (error: unknown) => log(`restore failed: ${String(error)}`),
  );
  async function loginAndSign(accountId: string, code: string): Promise<void> {
    const login = await wallet.startOtpLogin({ accountId });
    await verifyCode(login, code);
    await wallet.updateAccount(accountId, { privateEnabled: true });
    log('signed');
  }
  return { wallet, loginAndSign };
}
