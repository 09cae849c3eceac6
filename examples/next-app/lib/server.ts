// The example's backend: its own users (in memory), its own login cookie, the service
// credentials from the environment, the proxy confined to the signed-in user, and the bootstrap.
import { randomUUID } from 'node:crypto';
import { createProxy, provisionCustomer, walletBootstrap, type ProxyHandler, type WalletBootstrap } from 'embedded-wallet-signer/proxy';

export interface AppUser {
  id: string;
  email: string;
  customerId: string;
  accountId: string;
}

/** Users and login tokens, kept on globalThis: route handlers and pages are separate bundles. */
const store = ((globalThis as { __exampleUsers?: { users: Map<string, AppUser>; tokens: Map<string, string> } }).__exampleUsers ??= {
  users: new Map(),
  tokens: new Map(),
});

export const COOKIE = 'example-login';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see examples/next-app/README.md)`);
  return value;
}

/** The platform credentials: read on the server only, never sent to a browser. */
export function service() {
  return { baseUrl: env('SERVICE_BASE_URL'), clientId: env('SERVICE_CLIENT_ID'), clientSecret: env('SERVICE_CLIENT_SECRET') };
}

export function userOfToken(token: string | undefined): AppUser | null {
  const id = token === undefined ? undefined : store.tokens.get(token);
  return id === undefined ? null : (store.users.get(id) ?? null);
}

export function userOf(request: Request): AppUser | null {
  const cookie = request.headers.get('cookie') ?? '';
  const token = cookie.split(/;\s*/).find((c) => c.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1);
  return userOfToken(token);
}

/** Sign-up: the app's user, and their customer with an embedded wallet (provisionCustomer). */
export async function signUp(email: string): Promise<{ user: AppUser; token: string }> {
  const id = randomUUID();
  const { customerId, accountId } = await provisionCustomer(service(), { platformCustomerId: `example-${id}`, email, fullName: 'Example User' });
  const user = { id, email, customerId, accountId };
  store.users.set(id, user);
  const token = randomUUID();
  store.tokens.set(token, id);
  return { user, token };
}

let proxy: ProxyHandler | undefined;
/** The proxy, made on first use (the environment is read at request time, not at build time). */
export function walletProxy(): ProxyHandler {
  proxy ??= createProxy({
    ...service(),
    prefix: '/api/wallet',
    currentUser: async (request) => {
      const user = userOf(request);
      return user ? { customerId: user.customerId } : null;
    },
    logger: false,
  });
  return proxy;
}

/** What the browser needs for its wallet (the same document GET /api/wallet-bootstrap answers). */
export function bootstrapFor(user: AppUser): WalletBootstrap {
  return walletBootstrap({ accountId: user.accountId, trustedKeys: [env('ENCLAVE_PUBLIC_KEY_HEX')], baseUrl: '/api/wallet' });
}
