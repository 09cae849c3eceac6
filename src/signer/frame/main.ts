/**
 * The signer page's script (the entry the signer page loads; built by scripts/build.mjs into
 * dist/signer-page/). It listens for the parent's hello at once, reads the host configuration
 * served beside the page, and once a parent from an allowed origin is accepted makes the frame's
 * own wallet (keys, sessions, flows and signing all live here) and serves the parent's calls.
 * What only a prompt needs (its words, screens and actions: prompts.ts), the passkey ceremonies
 * (passkeys.ts) and the windows' code (popup.ts, approval-popup.ts) load on first use, so the
 * page's startup script holds the handshake, the configuration, the session restore and the reads
 * (`npm run size:frame` measures and budgets it).
 */
import { createWallet } from '../../wallet.js';
import { createSigningPolicy } from './approval.js';
import { APPROVAL_HASH, POPUP_HASH } from './page-modes.js';
import { tracksVisibility } from './tracks-visibility.js';
import { canonicalLocale, loadSignerConfig, type SignerConfig } from './config.js';
import type { FrameContext } from './context.js';
import { listenForParent } from './handshake.js';
import { prompts } from './methods.js';
import { serveParent, type Served } from './serve.js';
import { applyBranding, neededHeight, onWordsResized, screensOpen } from './views.js';
import { stringsWith, type Strings } from '../words/strings.js';

/** Whether this partition can hold the keys: IndexedDB opens (an opaque or storage-blocked frame cannot). */
async function storageProblem(): Promise<'SIGNER_STORAGE_UNAVAILABLE' | undefined> {
  try {
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open('embedded-wallet-signer-probe');
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('blocked'));
    });
    return undefined;
  } catch {
    return 'SIGNER_STORAGE_UNAVAILABLE';
  }
}

/**
 * The user's locale as `Intl` accepts it, or undefined (Intl's default). A browser may report a tag
 * Intl refuses (WebKitGTK under an environment without a locale); with it every amount and date
 * failed to format, and the words fell back to the request's raw fields.
 */
function userLocale(): string | undefined {
  return [...(navigator.languages ?? []), navigator.language].map(canonicalLocale).find((tag) => tag !== undefined && Intl.NumberFormat.supportedLocalesOf(tag).length > 0);
}

function start(port: MessagePort, config: SignerConfig): void {
  // The host's wording, locale and time zone (its configuration only); the locale defaults to the user's.
  const strings = stringsWith(config.strings);
  // Its title and language too: a screen reader reads the prompts in the language of the words.
  applyBranding(config, strings);
  // Shown while a screen is open, with the height its screen needs (views.ts `neededHeight`: the
  // parent sizes the iframe to it, bounded; a parent that does not is no threat: "Approve" stays in
  // view or disarmed whatever the height, signer.css and approve-button.ts).
  const screensChanged = () => {
    const height = neededHeight();
    port.postMessage(height === undefined ? { type: 'ui', visible: screensOpen() } : { type: 'ui', visible: screensOpen(), height });
  };
  onWordsResized(screensChanged);
  // The approval window where the browser cannot report occlusion, and for the host's high-value kinds (approval-route.ts).
  const locale = config.locale ?? userLocale();
  // "Unknown action" only where the host's configuration allows it (else refused: words-hookup.ts).
  const words = { strings, ...(locale !== undefined ? { locale } : {}), ...(config.timeZone !== undefined ? { timeZone: config.timeZone } : {}), allowUnknown: config.allowUnknown === true };
  // The prompts' screens load with the first approval (prompts.ts; a failed load is NETWORK_ERROR, nothing signed).
  // The approval window where the browser cannot report occlusion, and for the host's high-value kinds (approval-route.ts).
  const policy = createSigningPolicy(() => prompts(async (m) => m.screensIn(strings)), screensChanged, { tracksVisibility: tracksVisibility(), highValue: config.highValue, approvalLifetimeMs: config.approvalLifetimeMs, serviceNow: () => wallet.serverNow() });
  let served: Served | undefined;
  const wallet = createWallet({
    baseUrl: config.baseUrl,
    trustedKeys: config.trustedKeys,
    // The proxy is the app's: the user's app cookie goes with each request (CORS with credentials).
    // Each answer may move the server clock (its Date header): the parent hears of it (serve.ts
    // `answerSeen`) in a task of its own, after the wallet has read the header (its own
    // continuation of this fetch runs first, a microtask).
    fetch: (input, init) =>
      globalThis.fetch(input, { ...init, credentials: 'include' }).then((response) => {
        setTimeout(() => served?.answerSeen(), 0);
        return response;
      }),
    onBeforeSign: (request) => policy.onBeforeSign(request),
  });
  const ctx: FrameContext = { wallet, policy, logins: new Map(), screensChanged, words, ...(config.exportClearAfterMs !== undefined ? { exportClearAfterMs: config.exportClearAfterMs } : {}) };
  served = serveParent(port, ctx);
  // The frame keeps its sessions fresh from the start, whatever the parent asks.
  void wallet.restore().catch((error: unknown) => console.error('signer frame: restore failed', error));
}

/** A window of the signer page (not the frame): its code loaded now, its words in the host's strings once the configuration is read (else the table's). */
function runWindow(config: Promise<SignerConfig>, run: (strings: Strings) => Promise<void>): void {
  void config
    .then(
      (c) => {
        const strings = stringsWith(c.strings);
        applyBranding(c, strings);
        return strings;
      },
      // No configuration: the table's defaults (nothing of the host to apply).
      () => stringsWith(),
    )
    .then(run)
    // Its code could not be loaded: the window shows nothing and answers nothing; the frame's prompt
    // stays until it expires or the user closes the window (a decline): nothing is approved.
    .catch((error: unknown) => console.error('signer window:', error));
}

const config = loadSignerConfig(location.href);
if (location.hash === POPUP_HASH && window.parent === window) {
  // A window the frame opened for a passkey ceremony (popup.ts): it serves no parent.
  // The frame waits for its ready message, sent once drawn.
  runWindow(config, async (strings) => (await import('./popup.js')).runCeremonyWindow(strings));
} else if (location.hash === APPROVAL_HASH && window.parent === window) {
  // A window the frame opened for an approval (approval-popup.ts): it serves no parent.
  // Its prompt's buttons in the host's strings: the frame waits for its ready message, sent once drawn.
  runWindow(config, async (strings) => {
    const [{ runApprovalWindow }, { approvalRenderer }] = await Promise.all([import('./approval-popup.js'), import('./approval-screen.js')]);
    runApprovalWindow(approvalRenderer(strings), strings);
  });
} else {
  config.catch((error: unknown) => console.error('signer frame: no parent is accepted:', error instanceof Error ? error.message : error));
  listenForParent({
    allowedOrigins: config.then((c) => c.allowedParentOrigins),
    check: storageProblem,
    accepted: (port) => {
      void config.then((c) => start(port, c));
    },
  });
}
