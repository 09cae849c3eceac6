/**
 * The demo's own "login": which platform customer a browser acts for. Deliberately trivial (a real
 * app has its own sign-in); it only decides whose customer and accounts the proxy lets a browser
 * reach. The wallet itself still needs a credential (OTP, OAuth, passkey) to sign anything.
 *
 * A browser is bound by a random token in an httpOnly, SameSite=Lax cookie. Everything lives in
 * memory: restarting the demo forgets every binding (as the in-memory sandbox forgets everything).
 */
import { randomBytes } from 'node:crypto';

export const COOKIE_NAME = 'demo_session';

/** One platform customer this demo created, and what the proxy lets its browsers touch. */
export interface DemoCustomer {
  readonly customerId: string;
  /** Lower-cased email given at sign-up (for "continue as an existing demo customer"). */
  readonly email: string;
  /** Every internal account of the customer (the embedded wallet included). */
  accountIds: Set<string>;
  /** The customer's EMBEDDED_WALLET accounts. */
  walletAccountIds: string[];
}

export interface DemoUsers {
  add(customer: DemoCustomer): void;
  /** The newest demo customer with this email. */
  byEmail(email: string): DemoCustomer | undefined;
  /** Binds a new browser token to the customer; returns the token. */
  bind(customerId: string): string;
  /** The customer of the request's cookie, if any. */
  fromCookieHeader(cookie: string | null | undefined): DemoCustomer | undefined;
  unbind(cookie: string | null | undefined): void;
}

export function createDemoUsers(): DemoUsers {
  const customers = new Map<string, DemoCustomer>();
  const tokens = new Map<string, string>();
  const tokenOf = (cookie: string | null | undefined) => (cookie ? readCookie(cookie, COOKIE_NAME) : undefined);
  return {
    add(customer) {
      customers.set(customer.customerId, customer);
    },
    byEmail(email) {
      const wanted = email.trim().toLowerCase();
      let found: DemoCustomer | undefined;
      for (const c of customers.values()) if (c.email === wanted) found = c;
      return found;
    },
    bind(customerId) {
      const token = randomBytes(32).toString('base64url');
      tokens.set(token, customerId);
      return token;
    },
    fromCookieHeader(cookie) {
      const token = tokenOf(cookie);
      const id = token === undefined ? undefined : tokens.get(token);
      return id === undefined ? undefined : customers.get(id);
    },
    unbind(cookie) {
      const token = tokenOf(cookie);
      if (token !== undefined) tokens.delete(token);
    },
  };
}

/** One cookie's value from a `Cookie` header. */
export function readCookie(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for a binding (no `Secure`: the demo is served over http://localhost). */
export function bindingCookie(token: string): string {
  return `${COOKIE_NAME}=${token}; Path=/; HttpOnly; SameSite=Lax`;
}

export function clearedCookie(): string {
  return `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}
