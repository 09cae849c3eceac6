/**
 * The frame's handshake (src/signer/frame/handshake.ts, THREAT-MODEL.md P4) with generated hellos:
 * who sends them (the embedding window or another), from which origin, before or after the host
 * configuration is read, and whether the page can work. The oracle: exactly the first hello of the
 * embedding window from an allowed origin (in the order the configuration lets them through) is
 * accepted when the page can work; every other hello of the embedding window that was let in to
 * wait is told `refused` on its own port, once, and never anything else; a hello of another window
 * gets nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listenForParent } from '../../src/signer/frame/handshake.js';
import { SIGNER_PROTOCOL, type RefusalCode } from '../../src/signer/protocol.js';

const ALLOWED = 'https://app.example';
const OTHER = 'https://evil.example';

interface Sent {
  readonly fromParent: boolean;
  readonly allowed: boolean;
  /** Sent after the configuration resolved (else while it loads). */
  readonly late: boolean;
}

/** Lets every pending promise callback run (the handshake's chain is a few microtasks deep). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function run(sent: readonly Sent[], problem: RefusalCode | undefined) {
  const parent = {};
  const win = Object.assign(new EventTarget(), { parent }) as unknown as Window;
  let resolveConfig: (origins: readonly string[]) => void = () => undefined;
  const allowedOrigins = new Promise<readonly string[]>((resolve) => (resolveConfig = resolve));
  const accepted: number[] = [];
  const heard: unknown[][] = sent.map(() => []);
  const ports: MessagePort[] = [];
  const stop = listenForParent({
    allowedOrigins,
    check: async () => problem,
    accepted: (port) => accepted.push(ports.indexOf(port)),
    window: win,
  });
  const send = (i: number) => {
    const { port1, port2 } = new MessageChannel();
    ports[i] = port1;
    port2.onmessage = (event) => heard[i]?.push(event.data);
    const event = Object.assign(new Event('message'), {
      data: { protocol: SIGNER_PROTOCOL, type: 'hello' },
      origin: sent[i]?.allowed ? ALLOWED : OTHER,
      source: sent[i]?.fromParent ? parent : {},
      ports: [port1],
    });
    win.dispatchEvent(event);
  };
  for (let i = 0; i < sent.length; i++) if (!sent[i]?.late) send(i);
  resolveConfig([ALLOWED]);
  await settle();
  for (let i = 0; i < sent.length; i++) if (sent[i]?.late) send(i);
  await settle();
  stop();
  for (const port of ports) port.close();
  return { accepted, heard };
}

/** What the handshake must do with `sent` (see the file's comment). */
function oracle(sent: readonly Sent[], problem: RefusalCode | undefined) {
  let winner: number | undefined;
  const answers: (RefusalCode | undefined)[] = sent.map(() => undefined);
  // Two bursts: the hellos sent while the configuration loads, then those sent after.
  for (const late of [false, true]) {
    const acceptedBefore = winner !== undefined;
    let waiting = 0;
    for (const [i, hello] of sent.entries()) {
      if (hello.late !== late || !hello.fromParent) continue;
      if (acceptedBefore) {
        answers[i] = 'SIGNER_FRAME_UNREACHABLE';
        continue;
      }
      // At most four wait to be judged; the rest are dropped.
      if (waiting >= 4) continue;
      waiting++;
      if (winner !== undefined) answers[i] = 'SIGNER_FRAME_UNREACHABLE';
      else if (!hello.allowed) answers[i] = 'SIGNER_ORIGIN_NOT_ALLOWED';
      else if (problem !== undefined) answers[i] = problem;
      else winner = i;
    }
  }
  return { winner, answers };
}

const hello = fc.record({ fromParent: fc.boolean(), allowed: fc.boolean(), late: fc.boolean() });

describe('handshake (P4): once per load, only the embedding window, only allowed origins', () => {
  it('two hellos of the embedding window while the configuration loads: the first is accepted, the second told refused', async () => {
    const { accepted, heard } = await run([{ fromParent: true, allowed: true, late: false }, { fromParent: true, allowed: true, late: false }], undefined);
    expect(accepted).toEqual([0]);
    expect(heard).toEqual([[], [{ type: 'refused', code: 'SIGNER_FRAME_UNREACHABLE' }]]);
  });

  it('generated hellos against the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hello, { maxLength: 8 }), fc.constantFrom<RefusalCode | undefined>(undefined, 'SIGNER_STORAGE_UNAVAILABLE'), async (sent, problem) => {
        const { accepted, heard } = await run(sent, problem);
        const expected = oracle(sent, problem);
        expect(accepted).toEqual(expected.winner === undefined ? [] : [expected.winner]);
        expect(heard).toEqual(expected.answers.map((code) => (code === undefined ? [] : [{ type: 'refused', code }])));
      }),
      { numRuns: 300 },
    );
  });

  it('drops what is not exactly a hello with one port, a page not embedded, and everything after stop()', async () => {
    const parent = {};
    const accepted: string[] = [];
    const listen = (win: Window) =>
      listenForParent({ allowedOrigins: Promise.resolve([ALLOWED]), check: async () => undefined, accepted: (_, origin) => accepted.push(origin), window: win });
    const post = (win: Window, data: unknown, ports: MessagePort[], source: unknown = parent) =>
      win.dispatchEvent(Object.assign(new Event('message'), { data, origin: ALLOWED, source, ports }));
    const hello = { protocol: SIGNER_PROTOCOL, type: 'hello' };
    const win = Object.assign(new EventTarget(), { parent }) as unknown as Window;
    const stop = listen(win);
    const a = new MessageChannel();
    const b = new MessageChannel();
    post(win, hello, []);
    post(win, hello, [a.port1, b.port1]);
    post(win, { ...hello, type: 'call' }, [a.port1]);
    await settle();
    expect(accepted).toEqual([]);
    stop();
    post(win, hello, [a.port1]);
    await settle();
    expect(accepted).toEqual([]);
    // A page that is not embedded (its parent is itself) accepts no hello, even from itself.
    const top = new EventTarget() as unknown as Window & { parent: Window };
    top.parent = top;
    listen(top);
    post(top, hello, [b.port1], top);
    await settle();
    expect(accepted).toEqual([]);
    // The control: the same hello, embedded and listening, is accepted.
    const embedded = Object.assign(new EventTarget(), { parent }) as unknown as Window;
    listen(embedded);
    post(embedded, hello, [a.port2]);
    await settle();
    expect(accepted).toEqual([ALLOWED]);
    for (const port of [a.port1, a.port2, b.port1, b.port2]) port.close();
  });
});
