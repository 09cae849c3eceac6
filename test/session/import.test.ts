// Importing the main entry (and the legacy entry) and creating a wallet touch no browser global:
// the package must load during server-side rendering, and nothing may open IndexedDB, a channel or
// listeners before the app calls a method.
import { describe, expect, it, vi } from 'vitest';

const GLOBALS = ['window', 'document', 'navigator', 'indexedDB', 'BroadcastChannel', 'location', 'addEventListener', 'PublicKeyCredential'] as const;

describe('no browser globals at import or construction', () => {
  it('imports and createWallet() read none of them', async () => {
    const touched: string[] = [];
    const saved = new Map<string, PropertyDescriptor | undefined>();
    for (const name of GLOBALS) {
      saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get() {
          touched.push(name);
          return undefined;
        },
      });
    }
    try {
      vi.resetModules();
      const main = await import('../../src/index.js');
      await import('../../src/legacy.js');
      const wallet = main.createWallet({ baseUrl: 'https://example.invalid/2025-10-13', trustedKeys: 'skip-verification' });
      expect(wallet.session()).toBeNull();
      expect(wallet.sessions()).toEqual([]);
      expect(touched).toEqual([]);
      // The trap works: the first real use opens storage (here: finds no IndexedDB, falls back).
      const fallback = new Promise((resolve) => wallet.on('storage-fallback', resolve));
      await wallet.restore();
      expect(touched).toContain('indexedDB');
      expect(await fallback).toEqual({ reason: 'indexeddb-missing' });
      wallet.dispose();
    } finally {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete (globalThis as Record<string, unknown>)[name];
      }
    }
  });
});
