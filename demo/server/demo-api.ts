/**
 * The demo backend's own routes under `/demo` (JSON, same origin as the app):
 *
 * - `POST /demo/signup {fullName, email, phoneNumber}` → creates an INDIVIDUAL customer upstream
 *   (holding USDC, so the embedded wallet has a same-currency account to pay) with the library's
 *   `provisionCustomer`, binds it to this browser (httpOnly cookie) → `201` the `/demo/me` answer. The
 *   service's validation errors pass through (`{code, reason, details}`).
 * - `POST /demo/signin {email}` → binds this browser to the newest customer this demo created with
 *   that email (a second device or browser of the same person) → `200` the `/demo/me` answer;
 *   `404 NO_DEMO_CUSTOMER` otherwise. The demo's login is deliberately trivial: signing anything
 *   still needs a wallet credential.
 * - `GET /demo/me` → `{customer, accounts, walletAccountId, trustedKeys, sandbox, payees, oauth, signerUrl}`
 *   (`signerUrl`: the signer page in frame mode, else null);
 *   `204` without a binding (nobody yet is an answer, not an error: a first visit logs nothing).
 * - `POST /demo/logout` → clears the binding and the cookie → `204`.
 * - `POST /demo/sandbox/clock {seconds}` → advances the sandbox clock → `200 {now}`; sandbox mode
 *   only (`404` otherwise). Not tied to a user: the sandbox is a shared test service.
 *
 * Every one of these POSTs must say `Content-Type: application/json`, body or not (logout sends
 * `{}`); anything else → `415 UNSUPPORTED_MEDIA_TYPE` before the body is read (see
 * `requireJsonContentType`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isWalletError } from '../../src/errors.js';
import { provisionCustomer, type ServiceOptions } from '../../src/proxy/index.js';
import { errorBody, listData, type Upstream } from './upstream.js';
import { bindingCookie, clearedCookie, type DemoCustomer, type DemoUsers } from './users.js';
import { HttpError, readJson, sendError, sendJson, stringField } from './http-util.js';

export interface Payee {
  readonly label: string;
  readonly accountId: string;
}

export interface DemoApiOptions {
  readonly users: DemoUsers;
  readonly upstream: Upstream;
  /** The same service and credentials, for `provisionCustomer`. */
  readonly service: ServiceOptions;
  readonly sandbox: boolean;
  /** Enclave keys the browser trusts for OTP and export bundles. */
  readonly trustedKeys: () => Promise<readonly string[] | 'skip-verification'>;
  /** Accounts of other customers offered as transfer destinations. */
  readonly extraPayees: () => Promise<readonly Payee[]>;
  /** The sandbox's test sign-in page, when there is one. */
  readonly oauthAuthorizeUrl: string | null;
  /** The signer page's URL in frame mode (the app's wallet lives there); null in in-origin mode. */
  readonly signerUrl?: string | null;
  /** Where unexpected failures are reported (server side only). */
  readonly logError: (message: string) => void;
}

export type DemoApi = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The routes that change state: each one must pass `requireJsonContentType` first. */
const POST_ROUTES: ReadonlySet<string> = new Set(['/demo/signup', '/demo/signin', '/demo/logout', '/demo/sandbox/clock']);

/**
 * CSRF guard (our decision, one rule for every state-changing `/demo` route): the request must
 * declare `Content-Type: application/json` (media-type parameters such as `charset` allowed, case
 * ignored), whether or not it has a body; a body-less POST is not exempt, so the app's logout sends
 * `{}`. An HTML form on another site can only post `application/x-www-form-urlencoded`,
 * `multipart/form-data` or `text/plain`, and a cross-site `fetch` with `application/json` needs a
 * CORS preflight this server never grants. So no other page can make a visitor's browser sign up,
 * sign in (binding it to the attacker's customer), log out, or move the sandbox clock. The
 * SameSite=Lax cookie does not cover this: a top-level cross-site form POST still stores the
 * cookie that signup/signin answer with.
 */
function requireJsonContentType(req: IncomingMessage): void {
  const essence = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Demo POST requests must be sent with Content-Type: application/json.');
  }
}

export function createDemoApi(options: DemoApiOptions): DemoApi {
  const { users, upstream } = options;

  const loadAccounts = async (customerId: string) => {
    const answer = await upstream.call('GET', '/internal-account', { query: { customerId, limit: '100' } });
    if (answer.status !== 200) {
      const e = errorBody(answer);
      throw new HttpError(answer.status, e.code, e.reason);
    }
    return listData(answer);
  };

  const me = async (user: DemoCustomer) => {
    const customerAnswer = await upstream.call('GET', `/customers/${encodeURIComponent(user.customerId)}`);
    if (customerAnswer.status !== 200) {
      const e = errorBody(customerAnswer);
      throw new HttpError(customerAnswer.status, e.code, e.reason);
    }
    const accounts = await loadAccounts(user.customerId);
    user.accountIds = new Set(accounts.map((a) => String(a.id)));
    user.walletAccountIds = accounts.filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => String(a.id));
    const walletAccountId = user.walletAccountIds[0] ?? null;
    const own = accounts
      .filter((a) => a.type !== 'EMBEDDED_WALLET' && (a.balance as { currency?: { code?: unknown } } | undefined)?.currency?.code === 'USDC')
      .map((a) => ({ label: 'Your USDC account', accountId: String(a.id) }));
    return {
      customer: customerAnswer.body,
      accounts,
      walletAccountId,
      trustedKeys: await options.trustedKeys(),
      sandbox: options.sandbox,
      payees: [...(await options.extraPayees()), ...own],
      oauth: options.oauthAuthorizeUrl === null ? null : { authorizeUrl: options.oauthAuthorizeUrl },
      signerUrl: options.signerUrl ?? null,
    };
  };

  const register = async (customerId: string, email: string) => {
    const accounts = await loadAccounts(customerId);
    const customer: DemoCustomer = {
      customerId,
      email: email.toLowerCase(),
      accountIds: new Set(accounts.map((a) => String(a.id))),
      walletAccountIds: accounts.filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => String(a.id)),
    };
    users.add(customer);
    return customer;
  };

  const signup = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    const fullName = stringField(body, 'fullName', 200);
    const email = stringField(body, 'email', 254);
    // Spaces, parentheses and dashes are dropped before the service checks E.164 (at most 16
    // characters), so the raw field may be longer than that: "+1 (415) 555-0123" is fine.
    const phoneNumber = stringField(body, 'phoneNumber', 32).replace(/[\s()-]/g, '');
    let customerId: string;
    try {
      // The library's provisioning: the customer (holding USDC, so the embedded wallet has a
      // same-currency account to pay) and its embedded wallet.
      ({ customerId } = await provisionCustomer(options.service, { platformCustomerId: `demo-${randomUUID()}`, fullName, email, phoneNumber, currencies: ['USDC'] }));
    } catch (e) {
      // The service's refusals (validation, a taken email) pass through as they came.
      if (isWalletError(e) && e.status !== undefined) throw new HttpError(e.status, e.code, e.message, e.details);
      if (isWalletError(e, 'INVALID_ARGUMENT')) throw new HttpError(400, 'INVALID_INPUT', e.message);
      throw e;
    }
    const user = await register(customerId, email);
    const token = users.bind(user.customerId);
    sendJson(res, 201, await me(user), { 'Set-Cookie': bindingCookie(token) });
  };

  const signin = async (req: IncomingMessage, res: ServerResponse) => {
    const email = stringField(await readJson(req), 'email', 254);
    const user = users.byEmail(email);
    if (user === undefined) throw new HttpError(404, 'NO_DEMO_CUSTOMER', 'This demo has not created a customer with that email. Create one instead.');
    const token = users.bind(user.customerId);
    sendJson(res, 200, await me(user), { 'Set-Cookie': bindingCookie(token) });
  };

  const advanceClock = async (req: IncomingMessage, res: ServerResponse) => {
    if (!options.sandbox) throw new HttpError(404, 'NOT_FOUND', 'The clock can only be moved on the local sandbox.');
    const seconds = (await readJson(req)).seconds;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) throw new HttpError(400, 'INVALID_INPUT', 'seconds must be a number ≥ 0.');
    const answer = await upstream.call('POST', '/sandbox/clock/advance', { body: { seconds } });
    if (answer.status !== 200) {
      const e = errorBody(answer);
      throw new HttpError(answer.status, e.code, e.reason);
    }
    sendJson(res, 200, answer.body);
  };

  return async (req, res) => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = `${method} ${path}`;
    try {
      if (method === 'POST' && POST_ROUTES.has(path)) requireJsonContentType(req);
      if (route === 'POST /demo/signup') return await signup(req, res);
      if (route === 'POST /demo/signin') return await signin(req, res);
      if (route === 'POST /demo/sandbox/clock') return await advanceClock(req, res);
      if (route === 'POST /demo/logout') {
        users.unbind(req.headers.cookie);
        res.writeHead(204, { 'Set-Cookie': clearedCookie(), 'Cache-Control': 'no-store' });
        res.end();
        return;
      }
      if (route === 'GET /demo/me') {
        const user = users.fromCookieHeader(req.headers.cookie);
        if (user === undefined) {
          res.writeHead(204, { 'Cache-Control': 'no-store' });
          res.end();
          return;
        }
        return sendJson(res, 200, await me(user));
      }
      throw new HttpError(404, 'NOT_FOUND', `No demo route ${route}.`);
    } catch (e) {
      if (e instanceof HttpError) return sendError(res, e);
      // Anything else (the service unreachable, a bug): logged here, no internals to the browser.
      options.logError(`demo ${route} failed: ${e instanceof Error ? e.message : String(e)}`);
      return sendError(res, new HttpError(502, 'UPSTREAM_UNAVAILABLE', 'The service could not be reached. Is the sandbox running?'));
    }
  };
}
