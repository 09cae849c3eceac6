/**
 * Hole 1 of issue 34, the contact oracle (S15, S16 of src/proxy/scope.ts): no answer differs between
 * another customer's contact and a free one, for every route that takes a contact, on the first leg
 * and on every signed retry an attacker can send without a stamp that verifies (none, unreadable,
 * signed by a key over other bytes, another body). Compared: the status, the headers (names and
 * values; `date` by name only), and the body's shape — its keys and the type of each value, the
 * `code` of an error, the form of `requestId` and `expiresAt`, and the length class of every string
 * (its length rounded up to 128). A real sandbox (both profiles) holds the victim's email (their
 * wallet's EMAIL_OTP credential) and phone (an SMS_OTP credential); the attacker is another signed-in
 * customer. fast-check picks the route, the contact kind, the victim's value (emails in any case) or
 * a fresh free one, the retries and their order. A stamp that verifies reveals the answer to its
 * signer (contact-decoy.ts): not an attacker's view here.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, stamp } from '../sandbox/helpers/keys.js';
import { world, type World } from './world.js';

let w: World;
const VICTIM_PHONE = '+15550009999';
const VICTIM_EMAIL = 'bob-co@example.com';
let free = 0;

beforeAll(async () => {
  w = await world();
  // The victim ties a phone number: their customer's phone, then an SMS_OTP credential (signed retry).
  expect((await w.svc('PATCH', `/customers/${w.B.customerId}`, { phoneNumber: VICTIM_PHONE })).status).toBe(200);
  const body = { type: 'SMS_OTP', accountId: w.B.wallet };
  const first = await w.svc('POST', '/auth/credentials', body);
  expect(first.status, first.text).toBe(202);
  const done = await w.svc('POST', '/auth/credentials', body, { 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': first.body.requestId });
  expect(done.status, done.text).toBe(201);
  // A running proxy has passed on challenges of each route: the decoy takes the length of their
  // payloads (contact-decoy.ts; until then a decoy's has the default length, a documented residual).
  await probe('patch-email', `warm-${Date.now()}@example.com`, []);
  await probe('sms-credential', '+15550001111', []);
}, 60_000);
afterAll(() => w?.close());

interface View {
  status: number;
  headers: string;
  shape: unknown;
  body: any;
}

/** What an attacker can compare of an answer. */
function shapeOf(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => shapeOf(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v, k)]));
  if (key === 'code') return value;
  if (typeof value === 'string') {
    const form = key === 'requestId' ? value.replace(/(?<=[:_].*)[0-9a-f]/g, 'h') : key === 'expiresAt' ? value.replace(/\d/g, 'd') : `${Math.ceil(value.length / 128)}`;
    return `string ${form}`;
  }
  return typeof value;
}

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<View> {
  w.users.set('attacker', { customerId: w.A.customerId });
  const response = await w.proxy(
    new Request('http://proxy.local' + path, { method, headers: { 'x-user': 'attacker', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
  );
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  const names = [...response.headers].map(([n, v]) => (n === 'date' ? n : `${n}: ${v}`)).sort().join('\n');
  return { status: response.status, headers: names, shape: shapeOf(parsed), body: parsed };
}

type Retry = 'no-stamp' | 'unreadable' | 'other-bytes' | 'other-body';
const RETRIES: Retry[] = ['no-stamp', 'unreadable', 'other-bytes', 'other-body'];

/** The first leg and the chosen retries of one probe, as the attacker sees them. */
async function probe(route: 'patch-email' | 'sms-credential', value: string, retries: Retry[]): Promise<View[]> {
  let method: string;
  let path: string;
  let body: Record<string, unknown>;
  if (route === 'patch-email') {
    [method, path, body] = ['PATCH', `/customers/${w.A.customerId}`, { email: value }];
  } else {
    // The credential takes the customer's own phone: the attacker sets theirs first (no SMS_OTP yet: 200 at once).
    const set = await call('PATCH', `/customers/${w.A.customerId}`, { phoneNumber: value });
    expect(set.status).toBe(200);
    [method, path, body] = ['POST', '/auth/credentials', { type: 'SMS_OTP', accountId: w.A.wallet }];
  }
  const first = await call(method, path, body);
  const views = [first];
  const requestId = typeof first.body?.requestId === 'string' ? (first.body.requestId as string) : 'Request:00000000-0000-4000-8000-000000000000';
  const key = newKey();
  for (const retry of retries) {
    const headers: Record<string, string> = { 'request-id': requestId };
    if (retry === 'unreadable') headers['service-wallet-signature'] = 'not-a-stamp';
    if (retry === 'other-bytes' || retry === 'other-body') headers['service-wallet-signature'] = stamp('other bytes', key);
    views.push(await call(method, path, retry === 'other-body' ? { ...body, extra: 1 } : body, headers));
  }
  return views;
}

const view = (v: View) => ({ status: v.status, headers: v.headers, shape: v.shape });

describe('S16: another customer\'s contact answers as a free one (first leg and unsigned retries)', () => {
  it('every route that takes a contact, both kinds, generated values and retries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('patch-email' as const, 'sms-credential' as const),
        fc.boolean(),
        fc.array(fc.constantFrom(...RETRIES), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (route, upper, retries, takenFirst) => {
          const n = free++;
          const taken = route === 'patch-email' ? (upper ? VICTIM_EMAIL.toUpperCase() : VICTIM_EMAIL) : VICTIM_PHONE;
          const fresh = route === 'patch-email' ? `free-${n}-${Date.now()}@example.com` : `+1555${String(1_000_000 + n).slice(-7)}`;
          const order = takenFirst ? [taken, fresh] : [fresh, taken];
          const [a, b] = [await probe(route, order[0] as string, retries), await probe(route, order[1] as string, retries)];
          expect(a.map(view), `${route} ${order.join(' / ')} ${retries.join(',')}`).toEqual(b.map(view));
          // The first leg is a challenge for both (never the 409 that tells them apart).
          expect(a[0]?.status).toBe(202);
        },
      ),
      { numRuns: Number(process.env.CONTACT_RUNS ?? 20), ...(process.env.LEAK_SEED === undefined ? {} : { seed: Number(process.env.LEAK_SEED) }) },
    );
  }, 240_000);
});
