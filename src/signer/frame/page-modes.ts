/**
 * The signer page's modes besides the frame (main.ts picks by the fragment of its own URL): a window
 * of the signer origin that the frame opens itself, for a passkey ceremony (popup.ts) or an
 * approval (approval-popup.ts). Here so that the page's startup script knows them without the
 * windows' code, which it loads only in such a window.
 */

/** The signer page in this fragment runs as the passkey ceremony window. */
export const POPUP_HASH = '#passkey';

/** The signer page in this fragment runs as the approval window. */
export const APPROVAL_HASH = '#approval';
