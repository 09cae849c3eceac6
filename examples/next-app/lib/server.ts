// The example's backend, email-first: the wallet's email code is the app's login. No users table,
// no sign-up: the proxy's login mode (emailLoginProxy) finds or provisions the customer for the
// email, and the verified code sets the app's session cookie (readAppSession reads it).
import { emailLoginProxy, readAppSession, walletBootstrap, type AppSession, type ProxyHandler, type WalletBootstrap } from 'embedded-wallet-signer/proxy';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see examples/next-app/README.md)`);
  return value;
}

let proxy: ProxyHandler | undefined;
/** The proxy with its login routes, made on first use (the environment is read at request time, not at build time). */
export function walletProxy(): ProxyHandler {
  proxy ??= emailLoginProxy({
    // The platform credentials: read on the server only, never sent to a browser.
    baseUrl: env('SERVICE_BASE_URL'),
    clientId: env('SERVICE_CLIENT_ID'),
    clientSecret: env('SERVICE_CLIENT_SECRET'),
    prefix: '/api/wallet',
    secret: env('APP_SESSION_SECRET'),
    logger: false,
  });
  return proxy;
}

/** Who is signed in to the app (the cookie the login set), for the app's own pages and routes. */
export function appSession(request: Request): Promise<AppSession | null> {
  return readAppSession(request, env('APP_SESSION_SECRET'));
}

/** What every browser needs for its wallet, read at request time: a new enclave key needs no rebuild. */
export function bootstrap(): WalletBootstrap {
  return walletBootstrap({ trustedKeys: env('ENCLAVE_PUBLIC_KEY_HEX').split(','), baseUrl: '/api/wallet' });
}
