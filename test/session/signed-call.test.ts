// signedWithSession / signedBySession (signed-call.ts): a signed action bound to its session and to
// the account's logout nonce (I2), signed by the session current when the leg is sent (I3), started
// over when a refresh replaced the session that signed a refused leg (up to MAX_RESTARTS times). The client is real (the
// signed-retry engine) over an in-process service whose answers are the test's input; the sessions
// side is a small scripted ManagedSessions over real session keys: its storage changes become
// visible only when resolveFor reads storage again (as the manager's do), its ticket's signal is a
// real AbortController a "logout" aborts, and it records what the call asked of it. Every
// combination of what the service answers to each leg (refusals by status and code), what storage
// holds after a refusal (a refresh with the same credential, with another, the old session still
// held, no session left, the same id) and a second refusal is run; cancellations (logout, the app's
// signal, before or at the prompt) and who signs (account, excluded credential) are generated. The
// oracle is the promise in signed-call.ts's doc comment. Stamps are verified with node:crypto.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, signerFromKey, type SessionKey } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { MAX_RESTARTS, signedBySession, signedWithSession } from '../../src/session/signed-call.js';
import type { ManagedSessions, Session, SignerOptions, SigningTicket } from '../../src/session/types.js';
import { createClient, type Client, type SignRequest } from '../../src/transport/index.js';
import { verifyStampWithNode } from '../transport/fake-server.js';

const BASE = 'http://service.test/2025-10-13';
const A = 'InternalAccount:a';
const B = 'InternalAccount:b';

let keys: SessionKey[];
beforeAll(async () => {
  keys = await Promise.all(Array.from({ length: 5 }, () => generateSessionKey()));
});

function session(i: number, accountId = A, credentialId = 'AuthMethod:1'): Session {
  return {
    id: `Session:${i}`,
    accountId,
    credentialId,
    credentialType: 'EMAIL_OTP',
    publicKeyHex: keys[i]!.publicKeyHex,
    createdAt: '2030-01-01T00:00:00.000Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
  };
}

/** Storage as a tab sees it: what it holds now, and a change written by another tab it has not read yet. */
interface Held {
  sessions: Session[];
  current: Record<string, string | null>;
}

/** A scripted ManagedSessions: only what signed-call.ts uses, recording what it is asked. */
function sessionsOf(initial: Held) {
  let held: Held = initial;
  let unread: Held | undefined;
  const log = {
    tickets: [] as Array<{ accountId: string | undefined; done: number; abort: (reason: unknown) => void }>,
    resolves: [] as SignerOptions[],
    rejected: [] as Array<{ session: Session; error: WalletError; thrown: WalletError }>,
  };
  const read = () => {
    if (unread) [held, unread] = [unread, undefined];
  };
  const currentOf = (accountId: string | undefined) => held.sessions.find((s) => s.id === held.current[accountId ?? A]) ?? null;
  const fake = {
    log,
    /** Another tab writes storage; this tab sees it at its next read. */
    write(next: Held) {
      unread = next;
    },
    async signingTicket(accountId?: string): Promise<SigningTicket> {
      const controller = new AbortController();
      const entry = { accountId: accountId ?? A, done: 0, abort: (reason: unknown) => controller.abort(reason) };
      log.tickets.push(entry);
      return { accountId: entry.accountId, logoutNonce: null, signal: controller.signal, done: () => void entry.done++ };
    },
    async resolveFor(ticket: SigningTicket, options: SignerOptions = {}) {
      log.resolves.push(options);
      read();
      if (ticket.signal.aborted) throw new WalletError('NOT_LOGGED_IN', 'a logout was requested');
      let s = currentOf(ticket.accountId);
      if (s && options.excludeCredentialId !== undefined && s.credentialId === options.excludeCredentialId) {
        s = held.sessions.find((x) => x.accountId === ticket.accountId && x.credentialId !== options.excludeCredentialId) ?? null;
        if (!s) throw new WalletError('OTHER_CREDENTIAL_SESSION_REQUIRED', 'none');
      }
      if (!s) throw new WalletError('NOT_LOGGED_IN', 'no session');
      return { session: s, signer: signerFromKey(keys[Number(s.id.split(':')[1])]!) };
    },
    current: (accountId?: string) => currentOf(accountId),
    all: () => [...held.sessions],
    // Like the manager's: a refusal of the service (it has a status) is judged (here: always "gone");
    // anything else (a cancellation, a refused prompt) is returned as is.
    async rejected(s: Session, error: WalletError) {
      const thrown = error.status === undefined ? error : new WalletError('SESSION_REVOKED', 'judged by the fake', { cause: error });
      log.rejected.push({ session: s, error, thrown });
      return thrown;
    },
  };
  return fake as typeof fake & ManagedSessions;
}

interface Leg {
  signature: string | null;
  at: number;
}
type Answer = { status: number; body?: unknown };

/** An in-process service: `answer(leg, i)` answers each request. */
function service(answer: (leg: Leg, i: number) => Answer) {
  const legs: Leg[] = [];
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const leg = { signature: new Headers(init?.headers).get('Service-Wallet-Signature'), at: legs.length };
    legs.push(leg);
    const a = answer(leg, legs.length - 1);
    return new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status, headers: a.body === undefined ? {} : { 'Content-Type': 'application/json' } });
  };
  return { fetch, legs, signed: () => legs.filter((l) => l.signature !== null) };
}

let n = 0;
function challenge(): { payloadToSign: string; requestId: string; expiresAt: string } {
  n++;
  return { payloadToSign: JSON.stringify({ challenge: n }), requestId: `Request:${n}`, expiresAt: '2099-01-01T00:00:00.000Z' };
}

/** Leg 1's answer: a fresh challenge, its payload kept in `payloads` (to tell which key signed the signed leg). */
function challengeLeg(payloads: string[]): Answer {
  const c = challenge();
  payloads.push(c.payloadToSign);
  return { status: 202, body: c };
}

/** The public key that stamped `leg` over its challenge's payload (undefined: none, or a bad stamp). */
function signerOfLeg(leg: Leg, payload: string): string | undefined {
  if (!leg.signature) return undefined;
  const check = verifyStampWithNode(leg.signature, payload);
  return check.ok ? check.publicKey : undefined;
}

const REQUEST = { method: 'PATCH' as const, path: '/internal-accounts/InternalAccount:a', body: { x: 1 }, purpose: 'update' };

async function settle<T>(p: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await p };
  } catch (error) {
    return { error };
  }
}

describe('signedBySession: a refused signed leg, and what storage holds then (I3)', () => {
  const refusals = [
    { status: 401, code: 'WALLET_SIGNATURE_INVALID' },
    { status: 403, code: 'WALLET_SIGNATURE_INVALID' },
    { status: 401, code: 'UNAUTHENTICATED' },
    { status: 400, code: 'WALLET_SIGNATURE_INVALID' },
    { status: 500, code: 'INTERNAL' },
  ];
  // What another tab wrote while the leg was in flight (read by this tab only when it reads storage).
  const changes = ['none', 'refreshed', 'refreshed-other-credential', 'new-current-old-kept', 'logged-out', 'same-id-other-key'];
  // Every combination (240): the space is small, so it is enumerated rather than sampled.
  const scenarios = ['ok', 'refused'].flatMap((first) =>
    refusals.flatMap((refusal) => changes.flatMap((change) => ['ok', 'refused'].flatMap((second) => [true, false].map((withSignal) => ({ first, refusal, change, second, withSignal }))))),
  );

  it('started over once, signed by the new session, exactly when a refresh with the same credential replaced the signer of a 401 WALLET_SIGNATURE_INVALID; else the session layer judges the refusal', async () => {
    expect(scenarios).toHaveLength(240);
    for (const sc of scenarios) {
      const old = session(0);
      const fresh = session(1);
      const fake = sessionsOf({ sessions: [old], current: { [A]: old.id } });
      const after: Record<string, Held> = {
        none: { sessions: [old], current: { [A]: old.id } },
        refreshed: { sessions: [fresh], current: { [A]: fresh.id } },
        'refreshed-other-credential': { sessions: [{ ...fresh, credentialId: 'AuthMethod:2' }], current: { [A]: fresh.id } },
        'new-current-old-kept': { sessions: [old, fresh], current: { [A]: fresh.id } },
        'logged-out': { sessions: [], current: { [A]: null } },
        'same-id-other-key': { sessions: [{ ...old, publicKeyHex: keys[1]!.publicKeyHex }], current: { [A]: old.id } },
      };
      const payloads: string[] = [];
      let signedLegs = 0;
      const s = service((leg) => {
        if (leg.signature === null) return challengeLeg(payloads);
        signedLegs++;
        const refuse = signedLegs === 1 ? sc.first === 'refused' : sc.second === 'refused';
        if (!refuse) return { status: 200, body: { done: signedLegs } };
        if (signedLegs === 1) fake.write(after[sc.change]!);
        return { status: sc.refusal.status, body: { code: sc.refusal.code, message: 'refused' } };
      });
      const client = createClient({ baseUrl: BASE, fetch: s.fetch });
      const app = new AbortController();
      const out = await settle(signedBySession<{ done: number }>(client, fake, {}, { ...REQUEST, ...(sc.withSignal && { signingSignal: app.signal }) }));

      const retried = sc.first === 'refused' && sc.refusal.status === 401 && sc.refusal.code === 'WALLET_SIGNATURE_INVALID' && sc.change === 'refreshed';
      const signers = s.signed().map((leg, i) => signerOfLeg(leg, payloads[i]!));
      if (sc.first === 'ok') {
        expect(out).toEqual({ value: { answer: { done: 1 }, session: old } });
        expect(signers).toEqual([old.publicKeyHex]);
        expect(fake.log.rejected).toEqual([]);
      } else if (!retried) {
        expect(signers).toEqual([old.publicKeyHex]);
        expect(fake.log.rejected.map((r) => [r.session.id, r.error.status, r.error.code])).toEqual([[old.id, sc.refusal.status, sc.refusal.code]]);
        expect(out).toEqual({ error: fake.log.rejected[0]!.thrown });
      } else {
        expect(signers).toEqual([old.publicKeyHex, fresh.publicKeyHex]);
        if (sc.second === 'ok') {
          expect(out).toEqual({ value: { answer: { done: 2 }, session: fresh } });
          expect(fake.log.rejected).toEqual([]);
        } else {
          // Once only: a second refusal is judged, against the session that signed it.
          expect(fake.log.rejected.map((r) => [r.session.id, r.error.code])).toEqual([[fresh.id, sc.refusal.code]]);
          expect(out).toEqual({ error: fake.log.rejected[0]!.thrown });
        }
      }
      expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
    }
  });

  it(`starts over after each refusal a refresh of this browser explains, up to MAX_RESTARTS (${MAX_RESTARTS}) times, then SESSION_REPLACED_DURING_CALL; a refusal not so explained is judged`, async () => {
    // Each signed leg is refused after storage changed to: a refresh ('refresh', the next key), or
    // nothing ('none'), or a logout; or the leg is accepted ('ok'). Up to 6 legs.
    const legs = fc.array(fc.constantFrom('refresh', 'refresh', 'refresh', 'none', 'logged-out', 'ok'), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(legs, async (plan) => {
        const all = Array.from({ length: 5 }, (_, i) => session(i));
        const fake = sessionsOf({ sessions: [all[0]!], current: { [A]: all[0]!.id } });
        const payloads: string[] = [];
        let signedLegs = 0;
        let holder = 0;
        const s = service((leg) => {
          if (leg.signature === null) return challengeLeg(payloads);
          const what = plan[signedLegs++] ?? 'ok';
          if (what === 'ok') return { status: 200, body: { done: signedLegs } };
          if (what === 'refresh') {
            holder = (holder + 1) % all.length;
            fake.write({ sessions: [all[holder]!], current: { [A]: all[holder]!.id } });
          } else if (what === 'logged-out') fake.write({ sessions: [], current: { [A]: null } });
          return { status: 401, body: { code: 'WALLET_SIGNATURE_INVALID', message: 'refused' } };
        });
        const out = await settle(signedBySession(createClient({ baseUrl: BASE, fetch: s.fetch }), fake, {}, REQUEST));
        // The oracle: walk the plan; each refresh-explained refusal starts over while restarts are left.
        const expected: string[] = [all[0]!.publicKeyHex];
        let k = 0;
        let result: 'ok' | 'judged' | 'replaced' = 'ok';
        let key = 0;
        for (;;) {
          const what = plan[k] ?? 'ok';
          if (what === 'ok') break;
          if (what !== 'refresh') {
            result = 'judged';
            break;
          }
          key = (key + 1) % all.length;
          if (k === MAX_RESTARTS) {
            result = 'replaced';
            break;
          }
          k++;
          expected.push(all[key]!.publicKeyHex);
        }
        expect(s.signed().map((leg, i) => signerOfLeg(leg, payloads[i]!))).toEqual(expected);
        expect(s.signed()).toHaveLength(Math.min(expected.length, MAX_RESTARTS + 1));
        if (result === 'ok') expect(out).toEqual({ value: { answer: { done: expected.length }, session: all[key]! } });
        if (result === 'judged') {
          expect(fake.log.rejected.map((r) => r.session.publicKeyHex)).toEqual([expected.at(-1)]);
          expect(out).toEqual({ error: fake.log.rejected[0]!.thrown });
        } else expect(fake.log.rejected).toEqual([]);
        if (result === 'replaced') {
          const error = (out as { error: WalletError }).error;
          expect([error.code, (error.cause as WalletError).code]).toEqual(['SESSION_REPLACED_DURING_CALL', 'WALLET_SIGNATURE_INVALID']);
        }
        expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
      }),
      { numRuns: 150 },
    );
  });
});

describe('signedBySession: no session is asked for when none is needed', () => {
  it('an answer needing no signature: no session resolved, none reported, the ticket done once', async () => {
    const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
    const s = service(() => ({ status: 200, body: { at: 'once' } }));
    const out = await signedBySession(createClient({ baseUrl: BASE, fetch: s.fetch }), fake, {}, REQUEST);
    expect(out).toEqual({ answer: { at: 'once' }, session: undefined });
    expect(fake.log.resolves).toEqual([]);
    expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
  });

  it('a failure before any signer was asked for is thrown as is (the session layer does not judge it)', async () => {
    for (const status of [401, 404, 500]) {
      const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
      const s = service(() => ({ status, body: { code: 'WALLET_SIGNATURE_INVALID', message: 'no' } }));
      const out = await settle(signedWithSession(createClient({ baseUrl: BASE, fetch: s.fetch }), fake, {}, REQUEST));
      expect(isWalletError((out as { error: unknown }).error) && (out as { error: WalletError }).error.status).toBe(status);
      expect(fake.log.rejected).toEqual([]);
      expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
    }
  });

  it('signedWithSession gives the answer alone', async () => {
    const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
    const s = service((leg) => (leg.signature === null ? { status: 202, body: challenge() } : { status: 200, body: { ok: 1 } }));
    expect(await signedWithSession(createClient({ baseUrl: BASE, fetch: s.fetch }), fake, {}, REQUEST)).toEqual({ ok: 1 });
  });

  it('something other than a WalletError thrown after a signer was resolved passes through unjudged', async () => {
    const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
    const boom = new TypeError('a client of the app failed');
    const client = {
      signed: async (options: { getSigner: () => Promise<unknown> }) => {
        await options.getSigner();
        throw boom;
      },
    } as unknown as Client;
    expect(await settle(signedBySession(client, fake, {}, REQUEST))).toEqual({ error: boom });
    expect(fake.log.rejected).toEqual([]);
    expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
  });
});

describe('signedBySession: who signs', () => {
  it('the account named (default: the ticket names none) and a session of another credential when one is excluded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(undefined, A, B), fc.constantFrom(undefined, 'AuthMethod:1', 'AuthMethod:2', 'AuthMethod:9'), async (accountId, excluded) => {
        // Account a: current session 0 (credential 1), also session 2 (credential 2); account b: session 3 (credential 1).
        const held = { sessions: [session(0, A, 'AuthMethod:1'), session(2, A, 'AuthMethod:2'), session(3, B, 'AuthMethod:1')], current: { [A]: 'Session:0', [B]: 'Session:3' } };
        const fake = sessionsOf(held);
        const payloads: string[] = [];
        const s = service((leg) => {
          if (leg.signature !== null) return { status: 200, body: { ok: true } };
          return challengeLeg(payloads);
        });
        const who = { ...(accountId !== undefined && { accountId }), ...(excluded !== undefined && { excludeCredentialId: excluded }) };
        const out = await settle(signedBySession(createClient({ baseUrl: BASE, fetch: s.fetch }), fake, who, REQUEST));
        const account = accountId ?? A;
        expect(fake.log.tickets.map((t) => t.accountId)).toEqual([account]);
        const candidates = held.sessions.filter((x) => x.accountId === account);
        const current = candidates.find((x) => x.id === held.current[account])!;
        const expected = excluded === undefined || current.credentialId !== excluded ? current : candidates.find((x) => x.credentialId !== excluded);
        if (expected === undefined) {
          expect((out as { error: WalletError }).error.code).toBe('OTHER_CREDENTIAL_SESSION_REQUIRED');
          expect(s.signed()).toEqual([]);
        } else {
          expect(out).toEqual({ value: { answer: { ok: true }, session: expected } });
          expect(signerOfLeg(s.signed()[0]!, payloads[0]!)).toBe(expected.publicKeyHex);
        }
        // Asked before the prompt and after it, always with what the caller gave.
        expect(fake.log.resolves.length).toBeGreaterThanOrEqual(1);
        for (const options of fake.log.resolves) expect(options).toStrictEqual(excluded === undefined ? {} : { excludeCredentialId: excluded });
      }),
    );
  });

  it('a refresh during the prompt: the session current when the leg is sent signs (I3)', async () => {
    const [s0, s1] = [session(0), session(1)];
    const fake = sessionsOf({ sessions: [s0], current: { [A]: s0.id } });
    const c = challenge();
    const s = service((leg) => (leg.signature === null ? { status: 202, body: c } : { status: 200, body: { ok: true } }));
    const client = createClient({ baseUrl: BASE, fetch: s.fetch, onBeforeSign: () => fake.write({ sessions: [s1], current: { [A]: s1.id } }) });
    expect(await signedBySession(client, fake, {}, REQUEST)).toEqual({ answer: { ok: true }, session: s1 });
    expect(signerOfLeg(s.signed()[0]!, c.payloadToSign)).toBe(s1.publicKeyHex);
  });
});

describe('signedBySession: the call is bound to the logout nonce (I2) and to the app signal', () => {
  // Who cancels, and when: a logout (the ticket's signal) or the app's own signingSignal, before the
  // call or while its prompt is open; or nobody. The app's signal may be absent.
  const scenario = fc.record({
    logout: fc.constantFrom('never', 'before', 'at-prompt'),
    app: fc.constantFrom('absent', 'never', 'before', 'at-prompt'),
    appReasonIsWalletError: fc.boolean(),
  });

  it('a cancellation from either refuses the signature (none sent) with the reason of the first to fire; otherwise the call is signed', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
        const logoutReason = new WalletError('NOT_LOGGED_IN', 'a logout of the account was requested');
        const appReason = sc.appReasonIsWalletError ? new WalletError('ABORTED', 'the app cancelled') : 'app-cancelled';
        const app = new AbortController();
        if (sc.app === 'before') app.abort(appReason);
        const prompts: SignRequest[] = [];
        const s = service((leg) => (leg.signature === null ? { status: 202, body: challenge() } : { status: 200, body: { ok: true } }));
        const client = createClient({
          baseUrl: BASE,
          fetch: s.fetch,
          onBeforeSign: async (r) => {
            prompts.push(r);
            if (sc.logout === 'before' || sc.logout === 'at-prompt') fake.log.tickets[0]!.abort(logoutReason);
            if (sc.app === 'at-prompt') app.abort(appReason);
          },
        });
        // 'before' for the logout: aborted as soon as the ticket is taken (before the prompt opens).
        const original = fake.signingTicket.bind(fake);
        fake.signingTicket = async (accountId?: string) => {
          const t = await original(accountId);
          if (sc.logout === 'before') fake.log.tickets[0]!.abort(logoutReason);
          return t;
        };
        const out = await settle(signedBySession(client, fake, {}, { ...REQUEST, ...(sc.app !== 'absent' && { signingSignal: app.signal }) }));
        // Which refuses first: a logout before the call (resolving the signer, asked before the
        // prompt, refuses then), else an app signal aborted before the call, else (at the prompt) the
        // logout, which the hook fires first.
        const first = sc.logout === 'before' ? 'logout' : sc.app === 'before' ? 'app' : sc.logout === 'at-prompt' ? 'logout' : sc.app === 'at-prompt' ? 'app' : undefined;
        expect(fake.log.tickets.map((t) => t.done)).toEqual([1]);
        if (first === undefined) {
          expect(out).toEqual({ value: { answer: { ok: true }, session: session(0) } });
          expect(s.signed()).toHaveLength(1);
          return;
        }
        expect(s.signed()).toEqual([]);
        const error = (out as { error: WalletError }).error;
        // The logout's own reason, or the NOT_LOGGED_IN of resolving after it (the same refusal).
        if (first === 'logout') expect(error.code).toBe('NOT_LOGGED_IN');
        else if (sc.appReasonIsWalletError) expect(error).toBe(appReason);
        else expect([error.code, error.cause]).toEqual(['ABORTED', appReason]);
      }),
      { numRuns: 60 },
    );
  });

  it("an app signal that fires after the call settled changes nothing, and the ticket's signal is not the app's", async () => {
    const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
    const app = new AbortController();
    let seen: AbortSignal | undefined;
    const client = {
      signed: async (options: { signingSignal?: AbortSignal }) => {
        seen = options.signingSignal;
        return { ok: true };
      },
    } as unknown as Client;
    await signedBySession(client, fake, {}, { ...REQUEST, signingSignal: app.signal });
    expect(seen).toBeDefined();
    expect(seen!.aborted).toBe(false);
    // The signal handed on follows both: the app's...
    app.abort('late');
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toBe('late');
    // ...and, without an app signal, it is the ticket's own.
    await signedBySession(client, fake, {}, REQUEST);
    fake.log.tickets[1]!.abort('logout');
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toBe('logout');
  });

  it('with an app signal, a logout after the prompt opened still cancels (both are followed)', async () => {
    const fake = sessionsOf({ sessions: [session(0)], current: { [A]: 'Session:0' } });
    const app = new AbortController();
    let seen: AbortSignal | undefined;
    const client = {
      signed: async (options: { signingSignal?: AbortSignal }) => {
        seen = options.signingSignal;
        fake.log.tickets[0]!.abort('logout-reason');
        return 'x';
      },
    } as unknown as Client;
    await signedBySession(client, fake, {}, { ...REQUEST, signingSignal: app.signal });
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toBe('logout-reason');
  });
});
