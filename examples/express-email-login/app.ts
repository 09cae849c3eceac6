/**
 * An Express app whose only login is the wallet's email code (email-first login mode): no users
 * table, no sign-up form. The proxy finds or provisions the customer for the email, and the
 * verified code sets the app's session cookie; `/api/me` reads it with `readAppSession`.
 *
 *   SERVICE_BASE_URL=… SERVICE_CLIENT_ID=… SERVICE_CLIENT_SECRET=… APP_SESSION_SECRET=… ENCLAVE_PUBLIC_KEY_HEX=… \
 *     npx tsx examples/express-email-login/app.ts
 */
import express from 'express';
import { emailLoginProxy, expressMiddleware, readAppSession, type ServiceOptions } from 'embedded-wallet-signer/proxy';

export interface AppOptions {
  readonly service: ServiceOptions;
  /** At least 32 random characters: signs the login and session cookies. */
  readonly secret: string;
  /** The enclave keys the browser's wallet trusts (the sandbox prints its key at start). */
  readonly trustedKeys: readonly string[];
}

export function emailLoginApp(options: AppOptions): express.Express {
  const app = express();
  const proxy = emailLoginProxy({ ...options.service, prefix: '/api', secret: options.secret, logger: false });
  // The bootstrap is read at runtime by the browser: a new enclave key needs no rebuild.
  app.get('/api/wallet-bootstrap', (_request, response) => {
    response.set('cache-control', 'no-store').json({ baseUrl: '/api', trustedKeys: options.trustedKeys });
  });
  // Who is signed in, for the app's own pages (the same cookie the proxy's currentUser reads).
  app.get('/api/me', async (request, response) => {
    const session = await readAppSession(new Request(`http://app${request.url}`, { headers: { cookie: request.headers.cookie ?? '' } }), options.secret);
    response.set('cache-control', 'no-store').json(session === null ? { signedIn: false } : { signedIn: true, customerId: session.customerId, accountId: session.accountId });
  });
  // The login routes and the wallet's routes; before any body parser.
  app.use(expressMiddleware(proxy));
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { serviceFromEnv } = await import('embedded-wallet-signer/proxy');
  const app = emailLoginApp({
    service: serviceFromEnv(process.env),
    secret: process.env.APP_SESSION_SECRET ?? '',
    trustedKeys: (process.env.ENCLAVE_PUBLIC_KEY_HEX ?? '').split(',').filter(Boolean),
  });
  const port = Number(process.env.PORT ?? 3000);
  app.listen(port, '127.0.0.1', () => console.info(`http://127.0.0.1:${port}`));
}
