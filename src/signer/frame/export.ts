/**
 * Wallet export in frame mode (THREAT-MODEL.md P1, P2; issue 33 "Export only in the frame"). The
 * whole export runs here, in the signer's origin:
 * - the export's HPKE recipient key pair is generated here for this one export (non-extractable;
 *   never stored; unreachable once the call ends);
 * - the approval screen shows, in words, the request the frame itself sends (what it reveals, the
 *   wallet, the key it is encrypted to; that it cannot be undone), and the frame sends both legs
 *   after a trusted click;
 * - the envelope is verified against the host's trusted enclave keys and opened here, and the
 *   phrase is shown on the frame's own screen (export-view.ts): hidden until revealed by a trusted
 *   click, cleared after the host's `exportClearAfterMs` and when closed.
 * The parent gets `{ shown: true }` once the screen is gone, or an error as code and message (never
 * the phrase: no error here is made from it).
 */
import { WALLET_CONTEXT } from '../../session/context.js';
import { generateRecipientKey } from '../../crypto/index.js';
import { WalletError } from '../../errors.js';
import { loadOnFirstUse } from '../../load-on-first-use.js';
import { aborted, approveAction, type SigningPolicy } from './approval.js';
import type { RenderPhrase } from './export-view.js';
import type { ExportShown } from '../protocol.js';
import type { Wallet } from '../../wallet-api.js';
import type { WordsOptions } from '../words/types.js';
import { wordsOf } from './words-hookup.js';

/** What the export needs of the frame (its FrameContext, context.ts). */
export interface ExportContext {
  readonly wallet: Wallet;
  readonly policy: SigningPolicy;
  /** The UI changed (a screen opened or closed). */
  readonly screensChanged: () => void;
  /** The host's strings, locale and time zone (its configuration); default the table's. */
  readonly words?: WordsOptions;
}

export interface PhraseScreenOptions {
  readonly render: RenderPhrase;
  /** How long the phrase stays on screen, in ms. */
  readonly clearAfterMs: number;
}

/** The action's code, loaded on first use (a chunk of the signer page), as the in-origin wallet does; a failed load is NETWORK_ERROR. */
const exportCode = loadOnFirstUse(() => Promise.all([import('../../actions/export.js'), import('../../actions/args.js')]), 'export');

/** The export of `args[0]` (an account id; default: the current session's), approved and shown in the frame. */
export async function exportInFrame(ctx: ExportContext, args: readonly unknown[], signal: AbortSignal, screen: PhraseScreenOptions): Promise<ExportShown> {
  if (args.length > 1) throw new WalletError('INVALID_ARGUMENT', 'exportWallet takes an accountId at most');
  const [{ exportWalletTo, exportPath }, { accountOf }] = await exportCode(async (modules) => modules);
  const walletContext = ctx.wallet[WALLET_CONTEXT];
  const account = await accountOf(walletContext, args[0]);
  const recipient = await generateRecipientKey();
  const description = wordsOf(ctx).exportWallet(exportPath(account), recipient.publicKeyUncompressedHex);
  if (description === undefined) throw new WalletError('SIGNING_REFUSED', 'the signer cannot put this export in words');
  const mnemonic = await approveAction(ctx.policy, description, ['export-wallet'], signal, () => exportWalletTo(walletContext, account, recipient));
  if (signal.aborted) throw aborted();
  return showPhrase(ctx, mnemonic.trim().split(/\s+/), signal, screen);
}

/** Shows `words` until the user closes the screen, the time runs out or the parent stops waiting. */
function showPhrase(ctx: ExportContext, words: readonly string[], signal: AbortSignal, screen: PhraseScreenOptions): Promise<ExportShown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      shown.close();
      ctx.screensChanged();
      settle();
    };
    const done = () => finish(() => resolve({ shown: true }));
    const onAbort = () => finish(() => reject(aborted()));
    const timer = setTimeout(done, screen.clearAfterMs);
    const shown = screen.render(words, screen.clearAfterMs, done);
    signal.addEventListener('abort', onAbort, { once: true });
    ctx.screensChanged();
  });
}
