// The signature queue of the React entry (src/react/signatures.ts), framework-free, in Node: random
// sequences of requests, prompts mounting and unmounting, answers and aborts, against a model of
// its invariants (every request answered exactly once, with the right answer; deny by default;
// automatic requests never wait; the snapshot is the queue's head and stable until it changes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSignatureRequests, defaultSignaturePolicy } from '../../src/react/signatures.js';
import type { SignRequest } from '../../src/transport/index.js';

type Op =
  | { kind: 'request'; purpose: string; automatic: boolean; json: boolean }
  | { kind: 'attach' }
  | { kind: 'release'; which: number }
  | { kind: 'approve' }
  | { kind: 'reject' }
  | { kind: 'abort'; which: number }
  | { kind: 'stale-answer'; which: number };

const PURPOSES = ['update-internal-account', 'execute-quote', 'refresh-session', 'delete-session', 'otp-verify'];
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('request' as const), purpose: fc.constantFrom(...PURPOSES), automatic: fc.boolean(), json: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'attach' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), which: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'approve' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reject' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), which: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stale-answer' as const), which: fc.nat(8) }) },
);

function signRequest(purpose: string, automatic: boolean, payloadToSign: string, signal: AbortSignal): SignRequest {
  return { payloadToSign, method: 'POST', path: '/x', purpose, leg: 2, automatic, signal };
}

// The queue answers by promises, and a released prompt's refusal waits one macrotask
// (setTimeout 0, src/react/signatures.ts): a zero-delay timer set after it fires after it (timers of
// one delay run in the order they were set), with every promise queued before it settled.
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('signature queue: random sequences against a model', () => {
  it('every request is answered once, as the model says; the snapshot is the head of the queue', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const q = createSignatureRequests();
        let notified = 0;
        q.subscribe(() => notified++);
        const releases: Array<() => void> = [];
        let mounted = 0;
        interface Req {
          answers: boolean[];
          expected: boolean | 'pending';
          controller: AbortController;
          purpose: string;
          payload: unknown;
        }
        const all: Req[] = [];
        const waiting: Req[] = []; // the model's queue
        const answered: Array<{ approve(): void; reject(): void }> = [];
        for (const o of ops) {
          const headBefore = q.getSnapshot();
          const notifiedBefore = notified;
          switch (o.kind) {
            case 'request': {
              const controller = new AbortController();
              const payload = o.json ? { purpose: o.purpose, n: all.length } : `text ${all.length}`;
              const r: Req = { answers: [], expected: 'pending', controller, purpose: o.purpose, payload };
              all.push(r);
              const policy = defaultSignaturePolicy(signRequest(o.purpose, o.automatic, '', controller.signal));
              if (policy !== undefined) r.expected = policy;
              else if (o.automatic || mounted === 0) r.expected = false;
              else waiting.push(r);
              void Promise.resolve(q.onBeforeSign(signRequest(o.purpose, o.automatic, o.json ? JSON.stringify(payload) : (payload as string), controller.signal))).then((a) => r.answers.push(a !== false));
              await tick();
              break;
            }
            case 'attach':
              releases.push(q.attach());
              mounted++;
              break;
            case 'release': {
              const release = releases[o.which % Math.max(1, releases.length)];
              if (!release) break;
              release();
              release(); // a second call of one release changes nothing
              releases.splice(releases.indexOf(release), 1);
              mounted--;
              if (mounted === 0) for (const r of waiting.splice(0)) r.expected = false;
              break;
            }
            case 'approve':
            case 'reject': {
              const head = q.getSnapshot();
              const r = waiting.shift();
              expect(head === null).toBe(r === undefined);
              if (!head || !r) break;
              answered.push(head);
              r.expected = o.kind === 'approve';
              head[o.kind]();
              break;
            }
            case 'abort': {
              const r = all[o.which % Math.max(1, all.length)];
              if (!r) break;
              r.controller.abort();
              const i = waiting.indexOf(r);
              if (i !== -1) {
                waiting.splice(i, 1);
                r.expected = false;
              }
              break;
            }
            case 'stale-answer': {
              // An entry already answered: answering it again changes nothing (no notification either).
              const e = answered[o.which % Math.max(1, answered.length)];
              e?.approve();
              await tick();
              expect(notified).toBe(notifiedBefore);
              break;
            }
          }
          await tick();
          // The snapshot is the model's head; the same object while the head did not change.
          const head = q.getSnapshot();
          expect(head?.purpose ?? null).toBe(waiting[0]?.purpose ?? null);
          if (waiting[0]) expect(head?.payload).toEqual(waiting[0].payload);
          if (head !== null && head === headBefore) expect(q.getSnapshot()).toBe(headBefore);
          if (head !== headBefore) expect(notified).toBeGreaterThan(notifiedBefore);
          if (head) expect(Object.isFrozen(head)).toBe(true);
          for (const r of all) {
            expect(r.answers.length).toBeLessThanOrEqual(1);
            if (r.expected === 'pending') expect(r.answers).toEqual([]);
            else expect(r.answers).toEqual([r.expected]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a custom policy decides without the user; undecided automatic requests are refused', async () => {
    const q = createSignatureRequests({ policy: (r) => (r.purpose === 'otp-verify' ? true : r.purpose === 'no' ? false : undefined) });
    const signal = new AbortController().signal;
    expect(await q.onBeforeSign(signRequest('otp-verify', false, '{}', signal))).toBe(true);
    expect(await q.onBeforeSign(signRequest('no', false, '{}', signal))).toBe(false);
    expect(await q.onBeforeSign(signRequest('refresh-session', true, '{}', signal))).toBe(false);
    q.attach();
    const pending = q.onBeforeSign(signRequest('x', false, 'not json', signal));
    await tick();
    expect(q.getSnapshot()?.payload).toBe('not json');
    q.getSnapshot()?.approve();
    expect(await pending).toBe(true);
  });

  it('the default policy: delete-session and otp-verify always, refresh-session when automatic, nothing else', () => {
    const s = new AbortController().signal;
    expect(defaultSignaturePolicy(signRequest('delete-session', false, '', s))).toBe(true);
    expect(defaultSignaturePolicy(signRequest('delete-session', true, '', s))).toBe(true);
    expect(defaultSignaturePolicy(signRequest('refresh-session', true, '', s))).toBe(true);
    expect(defaultSignaturePolicy(signRequest('refresh-session', false, '', s))).toBeUndefined();
    expect(defaultSignaturePolicy(signRequest('execute-quote', true, '', s))).toBe(false);
    expect(defaultSignaturePolicy(signRequest('execute-quote', false, '', s))).toBeUndefined();
    expect(defaultSignaturePolicy(signRequest('otp-verify', false, '', s))).toBe(true);
    expect(defaultSignaturePolicy(signRequest('add-credential', false, '', s))).toBeUndefined();
  });

  it('an already aborted request is refused at once', async () => {
    const q = createSignatureRequests();
    q.attach();
    const controller = new AbortController();
    controller.abort();
    expect(await q.onBeforeSign(signRequest('x', false, '{}', controller.signal))).toBe(false);
    expect(q.getSnapshot()).toBeNull();
  });
});

describe('signature queue: the cases one by one', () => {
  const signal = () => new AbortController().signal;

  it('an abort while it waits answers false and empties the queue, once', async () => {
    const q = createSignatureRequests();
    q.attach();
    const controller = new AbortController();
    const answer = q.onBeforeSign(signRequest('x', false, '{"a":1}', controller.signal));
    await tick();
    const head = q.getSnapshot();
    expect(head?.payload).toEqual({ a: 1 });
    controller.abort();
    expect(await answer).toBe(false);
    expect(q.getSnapshot()).toBeNull();
    head?.approve(); // too late: nothing happens
    expect(q.getSnapshot()).toBeNull();
  });

  it('the last release refuses what waits; a release called twice counts once; unsubscribe stops notifications', async () => {
    const q = createSignatureRequests();
    let notified = 0;
    const off = q.subscribe(() => notified++);
    const first = q.attach();
    const second = q.attach();
    const a = q.onBeforeSign(signRequest('a', false, '{}', signal()));
    const b = q.onBeforeSign(signRequest('b', false, '{}', signal()));
    await tick();
    expect(q.getSnapshot()?.purpose).toBe('a');
    expect(notified).toBe(2);
    first();
    first();
    await tick();
    expect(q.getSnapshot()?.purpose).toBe('a'); // one prompt is still mounted
    off();
    second();
    expect(await a).toBe(false);
    expect(await b).toBe(false);
    expect(q.getSnapshot()).toBeNull();
    expect(notified).toBe(2);
    // Nothing mounted now: a new request is refused at once.
    expect(await q.onBeforeSign(signRequest('c', false, '{}', signal()))).toBe(false);
  });

  it('a prompt that attaches again before the next macrotask (an effect re-run) keeps what waits; one that does not, refuses it', async () => {
    const q = createSignatureRequests();
    const first = q.attach();
    const kept = q.onBeforeSign(signRequest('kept', false, '{}', signal()));
    await tick();
    first(); // StrictMode / Fast Refresh: the effect's cleanup, then at once its setup again
    const second = q.attach();
    await tick();
    expect(q.getSnapshot()?.purpose).toBe('kept');
    q.getSnapshot()?.approve();
    expect(await kept).toBe(true);
    const refused = q.onBeforeSign(signRequest('refused', false, '{}', signal()));
    await tick();
    second(); // unmounted for good
    expect(q.getSnapshot()?.purpose).toBe('refused'); // still there until the macrotask
    expect(await refused).toBe(false);
    expect(q.getSnapshot()).toBeNull();
  });

  it('approve and reject answer their own entry; the queue moves on in order', async () => {
    const q = createSignatureRequests();
    q.attach();
    const a = q.onBeforeSign(signRequest('a', false, '{}', signal()));
    const b = q.onBeforeSign(signRequest('b', false, '{}', signal()));
    await tick();
    const headA = q.getSnapshot();
    expect(q.getSnapshot()).toBe(headA);
    let notified = 0;
    q.subscribe(() => notified++);
    headA?.approve();
    headA?.approve(); // answered already: no second answer, no notification
    headA?.reject();
    await tick();
    expect(notified).toBe(1);
    expect(q.getSnapshot()?.purpose).toBe('b');
    q.getSnapshot()?.reject();
    expect(await a).toBe(true);
    expect(await b).toBe(false);
  });
});
