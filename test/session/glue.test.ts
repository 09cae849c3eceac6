// Three small parts of the session layer, fast (no sandbox): walletContext (context.ts: a wallet's
// parts for code building on it, INVALID_ARGUMENT for anything else, never a crash), createKeyPlan
// (key-plan.ts: the client-held-key plan) and onPageWake (page-events.ts: the page coming back,
// judged over generated sequences of page events against a small oracle, with a fake document and
// window as node has neither).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createWallet } from '../../src/index.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { WALLET_CONTEXT, walletContext } from '../../src/session/context.js';
import { createKeyPlan } from '../../src/session/key-plan.js';
import { onPageWake } from '../../src/session/page-events.js';
import { codeOf } from '../helpers/errors.js';

describe('walletContext', () => {
  it("a wallet made by createWallet: its own client, sessions and key store (under the symbol two copies of the library share)", async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const wallet = createWallet({ baseUrl: 'https://example.invalid/2025-10-13', trustedKeys: 'skip-verification', keyStore, crossTab: false });
    try {
      const ctx = walletContext(wallet);
      expect(ctx.keyStore).toBe(keyStore);
      expect(typeof ctx.client.signed).toBe('function');
      expect(typeof ctx.sessions.signingTicket).toBe('function');
      expect(ctx).toBe((wallet as unknown as Record<symbol, unknown>)[Symbol.for('embedded-wallet-signer.wallet-context')]);
    } finally {
      wallet.dispose();
    }
  });

  it('anything else is INVALID_ARGUMENT, never a crash', async () => {
    const ctx = { marker: 1 };
    const others: unknown[] = [undefined, null, 0, 1, '', 'wallet', true, Symbol('w'), 10n, [], {}, { [WALLET_CONTEXT]: undefined }, () => ctx, Object.create(null), { context: ctx }];
    for (const x of others) expect(await codeOf(Promise.resolve().then(() => walletContext(x)))).toBe('INVALID_ARGUMENT');
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (x) => {
        expect(await codeOf(Promise.resolve().then(() => walletContext(x)))).toBe('INVALID_ARGUMENT');
      }),
      { numRuns: 200 },
    );
    // An object carrying a context under the symbol is read as a wallet (the symbol is the contract).
    expect(walletContext({ [WALLET_CONTEXT]: ctx })).toBe(ctx);
  });
});

describe('createKeyPlan: the client-held key', () => {
  it('a fresh non-extractable key per plan; its compressed public key is sent; not legacy; the key itself whatever the service answers', async () => {
    const [a, b] = await Promise.all([createKeyPlan(), createKeyPlan()]);
    for (const plan of [a, b]) {
      expect(plan.clientPublicKey).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(plan.clientPublicKey).toBe(plan.key.publicKeyHex);
      expect(plan.legacy).toBe(false);
      expect(plan.key.privateKey.extractable).toBe(false);
      // Even an answer carrying a sealed key: ignored.
      expect(await plan.finish({ id: 'Session:1', expiresAt: '2099-01-01T00:00:00Z', encryptedSessionSigningKey: 'ab' } as never)).toBe(plan.key);
    }
    expect(a.clientPublicKey).not.toBe(b.clientPublicKey);
  });
});

describe('onPageWake', () => {
  const g = globalThis as Record<string, unknown>;
  afterEach(() => {
    delete g.document;
    delete g.addEventListener;
    delete g.removeEventListener;
  });

  /** An EventTarget standing for document or window; `partial` drops removeEventListener. */
  function host(partial = false): EventTarget & { visibilityState?: string } {
    const target = new EventTarget() as EventTarget & { visibilityState?: string };
    if (partial) Object.defineProperty(target, 'removeEventListener', { value: undefined });
    return target;
  }

  // What happens to the page: a visibility change (to a state), the network's return or loss, an
  // unrelated event, or the detacher called.
  const step = fc.oneof(
    fc.record({ kind: fc.constant('visibility' as const), state: fc.constantFrom('visible', 'hidden', 'prerender') }),
    fc.constantFrom({ kind: 'online' as const }, { kind: 'offline' as const }, { kind: 'focus' as const }, { kind: 'detach' as const }),
  );
  const setup = fc.record({
    document: fc.constantFrom('none', 'events', 'no-events', 'no-remove'),
    window: fc.constantFrom('none', 'events', 'no-remove'),
    initial: fc.constantFrom('visible', 'hidden', undefined),
  });

  it('wakes on visibilitychange to a state other than hidden and on online while not hidden, never after the detacher ran', async () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 12 }), (s, steps) => {
        delete g.document;
        delete g.addEventListener;
        delete g.removeEventListener;
        const doc = s.document === 'none' ? undefined : s.document === 'no-events' ? ({} as { visibilityState?: string }) : host(s.document === 'no-remove');
        if (doc && s.initial !== undefined) doc.visibilityState = s.initial;
        if (doc) g.document = doc;
        const win = s.window === 'none' ? undefined : host(s.window === 'no-remove');
        if (win) {
          g.addEventListener = win.addEventListener.bind(win);
          if (s.window !== 'no-remove') g.removeEventListener = win.removeEventListener.bind(win);
        }
        let woken = 0;
        const detach = onPageWake(() => void woken++);
        let expected = 0;
        let detached = false;
        const listening = (t: 'doc' | 'win') => !detached || (t === 'doc' ? s.document === 'no-remove' : s.window === 'no-remove');
        for (const st of steps) {
          if (st.kind === 'detach') {
            detach();
            detached = true;
            continue;
          }
          if (st.kind === 'visibility') {
            if (doc) doc.visibilityState = st.state;
            if (doc instanceof EventTarget) {
              doc.dispatchEvent(new Event('visibilitychange'));
              if (listening('doc') && st.state !== 'hidden') expected++;
            }
          } else if (win) {
            win.dispatchEvent(new Event(st.kind));
            if (st.kind === 'online' && listening('win') && doc?.visibilityState !== 'hidden') expected++;
          }
          if (doc instanceof EventTarget) doc.dispatchEvent(new Event(st.kind === 'visibility' ? 'online' : st.kind));
        }
        expect(woken).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('outside a browser (no document, no window events): nothing to attach, the detacher does nothing', () => {
    let woken = 0;
    const detach = onPageWake(() => void woken++);
    detach();
    detach();
    expect(woken).toBe(0);
  });
});
