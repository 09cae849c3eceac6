// The facade's lazy parts (login flows, signed actions): loaded once on first use, used
// synchronously afterwards, and a failed load is a WalletError that the next call retries.
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { loadOnFirstUse } from '../../src/load-on-first-use.js';

describe('loadOnFirstUse', () => {
  it('loads the module once; once loaded, `use` runs synchronously', async () => {
    let loads = 0;
    const module = { double: async (n: number) => n * 2 };
    const use = loadOnFirstUse(async () => {
      loads++;
      return module;
    }, 'test');
    const [a, b] = await Promise.all([use((m) => m.double(1)), use((m) => m.double(2))]);
    expect([a, b, loads]).toEqual([2, 4, 1]);
    let ran = false;
    const pending = use(async (m) => {
      ran = true;
      return m.double(3);
    });
    expect(ran).toBe(true);
    expect(await pending).toBe(6);
    expect(loads).toBe(1);
  });

  it('a failed load is NETWORK_ERROR (the import error as cause) and the next call loads again', async () => {
    const offline = new TypeError('Failed to fetch dynamically imported module');
    let attempt = 0;
    const use = loadOnFirstUse(async () => {
      attempt++;
      if (attempt === 1) throw offline;
      return { ok: async () => 'ok' };
    }, 'passkey');
    const error: unknown = await use((m) => m.ok()).catch((e: unknown) => e);
    expect(isWalletError(error, 'NETWORK_ERROR')).toBe(true);
    expect((error as Error).cause).toBe(offline);
    expect((error as Error).message).toContain('passkey');
    expect(await use((m) => m.ok())).toBe('ok');
    expect(attempt).toBe(2);
  });
});
