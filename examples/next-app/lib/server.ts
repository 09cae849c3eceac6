// The example's backend, email-first: the wallet's email code is the app's login. No users table,
// no sign-up: the proxy's login mode (emailLoginProxy) finds or provisions the customer for the
// email, and the verified code sets the app's session cookie (readAppSession reads it).
//
// Two modes, chosen by the environment at request time (one build serves both):
// - in-origin (SIGNER_URL unset): the wallet, its keys and the confirmation of each signature are
//   in the app's page; every script of the app can sign.
// - frame (SIGNER_URL set, e.g. http://localhost:5174/): the keys, the code the user types and the
//   approval of each signature are in the signer page on an origin of its own (its host has the
//   trusted keys, the proxy's URL and the allowed parent origins: examples/next-app/README.md).
//   The proxy then lets only that origin log in, refresh and sign (`signerOrigins`, THREAT-MODEL.md
//   P5) and answers its CORS requests with credentials (`withCors`).
import { emailLoginProxy, readAppSession, walletBootstrap, withCors, type AppSession, type FetchHandler, type WalletBootstrap } from 'embedded-wallet-signer/proxy';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see examples/next-app/README.md)`);
  return value;
}

/** Frame mode's signer page (`SIGNER_URL`), or null in in-origin mode. */
export function signerUrl(): string | null {
  const url = process.env.SIGNER_URL;
  return url ? new URL(url).href : null;
}

let proxy: FetchHandler | undefined;
/** The proxy with its login routes, made on first use (the environment is read at request time, not at build time). */
export function walletProxy(): FetchHandler {
  if (proxy !== undefined) return proxy;
  const signer = signerUrl();
  const signerOrigins = signer === null ? undefined : [new URL(signer).origin];
  const login = emailLoginProxy({
    // The platform credentials: read on the server only, never sent to a browser.
    baseUrl: env('SERVICE_BASE_URL'),
    clientId: env('SERVICE_CLIENT_ID'),
    clientSecret: env('SERVICE_CLIENT_SECRET'),
    prefix: '/api/wallet',
    secret: env('APP_SESSION_SECRET'),
    logger: false,
    ...(signerOrigins ? { signerOrigins } : {}),
  });
  proxy = signerOrigins ? withCors(login, { origins: signerOrigins }) : login;
  return proxy;
}

/** Who is signed in to the app (the cookie the login set), for the app's own pages and routes. */
export function appSession(request: Request): Promise<AppSession | null> {
  return readAppSession(request, env('APP_SESSION_SECRET'));
}

/**
 * What every browser needs for its wallet, read at request time (a new enclave key or signer needs
 * no rebuild): in-origin the proxy path and the trusted enclave keys; in frame mode the signer
 * page's URL alone (the keys and the proxy's URL are the signer host's configuration, never the app's).
 */
export type ExampleBootstrap = WalletBootstrap | { readonly signerUrl: string };

export function bootstrap(): ExampleBootstrap {
  const signer = signerUrl();
  if (signer !== null) return { signerUrl: signer };
  return walletBootstrap({ trustedKeys: env('ENCLAVE_PUBLIC_KEY_HEX').split(','), baseUrl: '/api/wallet' });
}
