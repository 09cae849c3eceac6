/**
 * The passkey login's challenge, fetched before the click (`preparePasskeyLogin`) so the WebAuthn
 * ceremony starts inside the user's gesture. A prepared login is kept between visits of the login
 * screen while its challenge has time left: the service limits challenges per credential (the
 * sandbox: 5 a minute), and each prepare costs one. A challenge is single use: taken, it is gone.
 */
import type { PasskeyLogin, Wallet } from '../../../src/index.js';
import { errorCode } from '../messages.js';

const MIN_LEFT_MS = 30_000;
const cache = new Map<string, Promise<PasskeyLogin>>();

export interface PasskeyPrep {
  /** Starts fetching (or reuses) a prepared login; `onState` hears how it went. */
  prepare(): void;
  /** The prepared login for the click (removed from the cache: a challenge is single use). */
  take(): Promise<PasskeyLogin>;
}

export function passkeyPrep(wallet: Wallet, accountId: string, legacy: () => boolean, onState: (text: string) => void): PasskeyPrep {
  const key = () => `${accountId}${legacy() ? ':legacy' : ''}`;
  const report = (p: Promise<PasskeyLogin>) =>
    p.then(
      () => onState('Ready: your browser will ask for the passkey.'),
      (e: unknown) =>
        onState(errorCode(e) === 'CREDENTIAL_NOT_FOUND' ? 'This wallet has no passkey yet: add one under Credentials.' : 'The passkey challenge could not be fetched; the button tries again.'),
    );
  const fetchNew = () => {
    const k = key();
    const p = legacy()
      ? import('../../../src/legacy.js').then((m) => m.prepareLegacyPasskeyLogin(wallet, { accountId }))
      : wallet.preparePasskeyLogin({ accountId });
    cache.set(k, p);
    p.catch(() => {
      if (cache.get(k) === p) cache.delete(k);
    });
    return p;
  };
  const usable = async (): Promise<PasskeyLogin> => {
    const kept = cache.get(key());
    if (kept) {
      const login = await kept.catch(() => undefined);
      if (login && Date.parse(login.expiresAt) - wallet.serverNow() > MIN_LEFT_MS) return login;
    }
    return fetchNew();
  };
  return {
    prepare() {
      onState('Preparing the passkey challenge…');
      void report(usable());
    },
    async take() {
      const login = await usable();
      cache.delete(key());
      return login;
    },
  };
}
