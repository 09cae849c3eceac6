/**
 * A stand-in for one browser talking to the demo stack over HTTP: it keeps the demo cookie the way
 * a browser does (stores it from `Set-Cookie`, drops it on `Max-Age=0`, sends it back as `Cookie`)
 * and returns every answer (never throws on a status) so tests assert statuses and codes.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { jsonOrUndefined } from '../helpers/json.js';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body, or undefined. */
  readonly json: any;
}

export interface CallOptions {
  readonly body?: unknown;
  /** A raw body string, sent as is (overrides `body`). */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export const COOKIE_NAME = 'demo_session';

export class Browser {
  /** `demo_session=<token>`, or undefined when the browser holds no demo cookie. */
  cookie: string | undefined;
  /** Every `Set-Cookie` this browser received, in order. */
  readonly setCookies: string[] = [];
  /** Every answer this browser received (secrecy scans look at all of them). */
  readonly answers: Answer[] = [];

  constructor(readonly origin: string) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (this.cookie !== undefined) headers.Cookie = this.cookie;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['Content-Type'] ??= 'application/json';
    const res = await fetch(this.origin + path, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) });
    for (const set of res.headers.getSetCookie()) {
      this.setCookies.push(set);
      const [pair = '', ...attributes] = set.split(';').map((s) => s.trim());
      if (!pair.startsWith(`${COOKIE_NAME}=`)) continue;
      const cleared = pair === `${COOKIE_NAME}=` || attributes.some((a) => /^max-age=0$/i.test(a));
      this.cookie = cleared ? undefined : pair;
    }
    const text = await res.text();
    const json = jsonOrUndefined(text);
    const answer: Answer = { status: res.status, headers: res.headers, text, json };
    this.answers.push(answer);
    return answer;
  }

  get(path: string, options?: CallOptions): Promise<Answer> {
    return this.call('GET', path, options);
  }
  post(path: string, body?: unknown, options: CallOptions = {}): Promise<Answer> {
    return this.call('POST', path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  patch(path: string, body?: unknown, options: CallOptions = {}): Promise<Answer> {
    return this.call('PATCH', path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  delete(path: string, options?: CallOptions): Promise<Answer> {
    return this.call('DELETE', path, options);
  }
}

export const enc = encodeURIComponent;

/** What `/demo/signup`, `/demo/signin` and `/demo/me` answer. */
export interface Me {
  customer: { id: string; email: string; phoneNumber: string; fullName: string };
  accounts: { id: string; type: string; customerId: string }[];
  walletAccountId: string | null;
  trustedKeys: string[] | 'skip-verification';
  sandbox: boolean;
  payees: { label: string; accountId: string }[];
  oauth: { authorizeUrl: string } | null;
}

/** A unique sign-up body (the sandbox checks email and E.164 phone formats). */
export function signupBody(label = 'Demo User'): { fullName: string; email: string; phoneNumber: string } {
  const id = randomUUID();
  const digits = String(parseInt(id.replace(/-/g, '').slice(0, 10), 16) % 10_000_000).padStart(7, '0');
  return { fullName: label, email: `demo-${id}@example.com`, phoneNumber: `+1555${digits}` };
}

/** Signs a new browser up as a new demo customer; returns the browser and its `/demo/me`. */
export async function signUp(origin: string, label?: string): Promise<{ browser: Browser; me: Me }> {
  const browser = new Browser(origin);
  const answer = await browser.post('/demo/signup', signupBody(label));
  expect(answer.status, answer.text).toBe(201);
  expect(browser.cookie).toBeDefined();
  return { browser, me: answer.json as Me };
}
