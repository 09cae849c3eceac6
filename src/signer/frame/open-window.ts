/**
 * Opens a window of the signer page (the approval window, the passkey's ceremony window), or null
 * where the browser refuses. Browsers refuse in two ways: Chromium's `window.open` answers null in a
 * frame sandboxed without `allow-popups` (or with popups blocked), Firefox ESR's throws
 * (InvalidAccessError, seen in e2e/frame/portable/13-passkey.spec.ts and 04-approval-popup.spec.ts).
 * Both are a blocked window to the callers (SIGNER_POPUP_BLOCKED); a throw left unhandled in a click
 * listener once left the frame's screen waiting for ever.
 */
export function openSignerWindow(url: string): Window | null {
  try {
    return window.open(url, '_blank', 'popup,width=480,height=640');
  } catch {
    return null;
  }
}
