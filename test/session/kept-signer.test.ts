// signing.ts's kept signer (I2), swept over time (fast, no sandbox): a logout requested by another tab
// at any read of the logout record while `signer()` is being made — before the session is picked,
// while it is, or at the read that binds the signer to the account's logout nonce — and not yet
// carried out by anyone: no signature is made with it, and nothing signed leaves. The read at which
// the logout lands is each of the reads `signer()` makes (counted on a first call, so the sweep does
// not depend on how many there are). Tabs are managers over tabs-fixture.ts's platform; the channel is
// off, so only storage tells this tab of the logout.
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/crypto/index.js';
import type { KeyStoreBackend } from '../../src/keys/index.js';
import { requestLogout } from '../../src/session/state.js';
import { ACCOUNT, codeOf, platform } from './tabs-fixture.js';

const LOGOUT_KEY = `meta:logout:${ACCOUNT}`;

/** A backend that counts reads of the account's logout record and, at the armed one, first lets `before` run (another tab writing). */
function hookedBackend(inner: KeyStoreBackend) {
  let reads = 0;
  let at = 0;
  let before: () => Promise<void> = async () => undefined;
  const backend: KeyStoreBackend = {
    ...inner,
    get: async (k) => {
      if (k === LOGOUT_KEY && ++reads === at) await before();
      return inner.get(k);
    },
  };
  return {
    backend,
    reads: () => reads,
    arm(n: number, fn: () => Promise<void>) {
      reads = 0;
      at = n;
      before = fn;
    },
  };
}

describe('I2: a kept signer signs nothing once a logout was requested, wherever in signer() the request lands', () => {
  it('the logout lands at each read of signer() in turn: the signer is refused, or sign() is NOT_LOGGED_IN; the same signer signs without it', async () => {
    const data = new Uint8Array([1, 2, 3]);
    // A first call, unhooked, counts the reads.
    const count = (() => {
      const p = platform({ channel: false });
      return p;
    })();
    const hooked = hookedBackend(count.backend);
    const a = count.tab({ backend: hooked.backend });
    const s = await count.login(a);
    hooked.arm(0, async () => undefined);
    const plain = await a.manager.signer(ACCOUNT);
    const reads = hooked.reads();
    expect(reads).toBeGreaterThan(0);
    expect(await verifySignature(s.publicKeyHex, await plain.sign(data), data)).toBe(true);

    for (let n = 1; n <= reads; n++) {
      const p = platform({ channel: false });
      const h = hookedBackend(p.backend);
      const tab = p.tab({ backend: h.backend });
      const other = p.tab();
      await p.login(tab);
      let requested = false;
      h.arm(n, async () => {
        requested = true;
        await requestLogout(other.keyStore.meta, ACCOUNT);
      });
      const signer = await tab.manager.signer(ACCOUNT).catch((error: unknown) => error as Error);
      expect(requested, `the logout landed at read ${n}`).toBe(true);
      if (signer instanceof Error) {
        expect((signer as { code?: string }).code, `read ${n}`).toBe('NOT_LOGGED_IN');
        continue;
      }
      // The refusal says which session and that nothing was signed (signing.ts).
      expect(await signer.sign(data).then(() => undefined, (e: unknown) => e), `read ${n}`).toMatchObject({ code: 'NOT_LOGGED_IN', message: expect.stringMatching(/^Session:\S+ is no longer held here: nothing is signed with it$/) });
    }
  });
});
