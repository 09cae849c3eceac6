// The passkey's ceremony window (src/signer/frame/popup.ts, THREAT-MODEL.md P3): a window the browser
// refuses to open is SIGNER_POPUP_BLOCKED, however it refuses — Chromium's `window.open` answers null
// in a frame sandboxed without allow-popups, Firefox ESR's throws (InvalidAccessError); either way the
// ceremony settles at once (a throw once left the frame's screen waiting for ever). In real browsers:
// e2e/frame/portable/13-passkey.spec.ts ("a blocked window is SIGNER_POPUP_BLOCKED").
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ceremonyInPopup } from '../../src/signer/frame/popup.js';

const OPTIONS = { challenge: 'AAAA', allowCredentials: [], rpId: 'localhost' };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the ceremony window refused by the browser', () => {
  const refusals: Array<[string, (url: string) => Window | null]> = [
    ['answers null (Chromium)', () => null],
    [
      'throws (Firefox ESR)',
      () => {
        throw Object.assign(new Error('A parameter or an operation is not supported by the underlying object'), { name: 'InvalidAccessError' });
      },
    ],
  ];
  it.each(refusals)('window.open %s: SIGNER_POPUP_BLOCKED, asked once, for the signer page', async (_how, open) => {
    const opened = vi.fn((url: string) => open(url));
    vi.stubGlobal('location', new URL('http://localhost:4000/signer.html'));
    vi.stubGlobal('window', { open: opened });
    await expect(ceremonyInPopup('get', OPTIONS)).rejects.toMatchObject({ name: 'WalletError', code: 'SIGNER_POPUP_BLOCKED' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(new URL(opened.mock.calls[0]?.[0] ?? '').origin).toBe('http://localhost:4000');
  });
});
