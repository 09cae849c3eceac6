/**
 * What the frame benchmark runs inside the pages (self-contained functions of one JSON argument,
 * like e2e/frame/in-page.ts, so that every engine's driver runs them).
 */

import type { Wallet } from '../../../src/wallet.js';

type FrameWallet = ReturnType<typeof window.frameLib.createWallet>;
type InOriginWallet = Wallet;

/** Makes the frame-mode wallet and connects it: the time from `createWallet` to `restore()` resolved (ms). */
export async function handshakeInPage(): Promise<number> {
  const started = performance.now();
  const { createWallet, signerFrame } = window.frameLib;
  const wallet = createWallet({ signer: signerFrame({ url: window.signerUrl }) });
  await wallet.restore();
  window.t.wallet = wallet;
  return performance.now() - started;
}

/** An in-origin wallet of the same customer in the app's page, logged in by email code (the sandbox's). */
export async function inOriginLoginInPage([accountId, code]: readonly [string, string]): Promise<void> {
  await import(`${location.origin}/in-origin.js`);
  const me = (await (await fetch('/demo/me')).json()) as { trustedKeys: string[] };
  const wallet = window.inOriginLib.createWallet({ baseUrl: '/in-origin-api', trustedKeys: me.trustedKeys, onBeforeSign: async () => true });
  await wallet.restore();
  const login = await wallet.startOtpLogin({ accountId });
  await login.verify(code);
  window.t.inOrigin = wallet;
}

/**
 * `n` refreshes of each wallet, alternating which goes first, each timed alone (ms): a signed call
 * made without a click, through the frame (message to the frame, its signature and request, the
 * answer back) and in the app's own page.
 */
export async function refreshPairsInPage(n: number): Promise<{ frame: number[]; inOrigin: number[] }> {
  const frame = window.t.wallet as FrameWallet;
  const inOrigin = window.t.inOrigin as InOriginWallet;
  const times = { frame: [] as number[], inOrigin: [] as number[] };
  const timed = async (key: 'frame' | 'inOrigin') => {
    const started = performance.now();
    await (key === 'frame' ? frame.refresh() : inOrigin.refresh());
    times[key].push(performance.now() - started);
  };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await timed('frame');
      await timed('inOrigin');
    } else {
      await timed('inOrigin');
      await timed('frame');
    }
  }
  return times;
}

/**
 * In the frame: records (Date.now()) when the approval screen appears and when its button can be
 * pressed: "Approve", or, where the prompt is answered in the approval window (Firefox, WebKit),
 * "Open the approval window" (the window's own "Approve" then arms after its 700 ms).
 */
export function watchApprovalInFrame(): void {
  const marks: ApprovalMarks = {};
  (window as unknown as { __marks: typeof marks }).__marks = marks;
  const look = (atInstall: boolean) => {
    const button = (document.querySelector('[data-testid="signer-approve"]') ?? document.querySelector('[data-testid="signer-open-popup"]')) as HTMLButtonElement | null;
    if (button !== null) {
      marks.shown ??= Date.now();
      if (button.dataset.testid !== undefined) marks.button ??= button.dataset.testid;
    }
    if (button !== null && !button.disabled) {
      marks.armed ??= Date.now();
      // Already pressable when the watch began (the approval window found late): an upper bound.
      if (atInstall) marks.late = true;
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(() => look(false));
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
  look(true);
}

/** When the prompt's button appeared and became pressable (Date.now()), which button, and whether it was pressable before the watch began. */
export interface ApprovalMarks {
  shown?: number;
  armed?: number;
  button?: string;
  late?: boolean;
}

/** What `watchApprovalInFrame` recorded. */
export function approvalMarksInFrame(): ApprovalMarks {
  return (window as unknown as { __marks?: ApprovalMarks }).__marks ?? {};
}

/** Starts `updateAccount` in the frame-mode wallet; returns when it was called (Date.now()). */
export function startUpdateTimedInPage(accountId: string): number {
  const wallet = window.t.wallet as FrameWallet;
  const at = Date.now();
  window.t.update = wallet.updateAccount(accountId, { privateEnabled: true }).then(
    () => ({ ok: true }),
    (error: { code?: string }) => ({ ok: false, code: error.code }),
  );
  return at;
}
