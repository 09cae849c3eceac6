/**
 * How `POST /quotes/{quoteId}/execute` of an embedded-wallet source is signed: the spec reads two
 * ways, and the sandbox offers each (issue 34), so a client can be tested against both.
 *
 * - Spec §4.3: "When the source is an EMBEDDED_WALLET internal account, the request must carry the
 *   Service-Wallet-Signature header, built over the payloadToSign of the quote's
 *   paymentInstructions[].accountOrWalletInfo" — one call, stamped (wire §8.3 says the same: "no
 *   Request-Id, no 202 leg").
 * - Spec §5.3 lists "executing a quote from an embedded-wallet source (where payloadToSign comes
 *   from the quote)" among the actions of the signed-retry pattern: an unsigned first call answers
 *   `202 {payloadToSign, requestId, expiresAt}`, the retry carries the stamp and `Request-Id`.
 *
 * Modes (`startSandbox({ quoteExecute })`, else the environment variable `SANDBOX_QUOTE_EXECUTE`,
 * else `stamp`):
 * - `stamp` (the default: what the wire reference and §4.3 spell out, and what the library sends
 *   today): the stamp is required on the one call (`401 WALLET_SIGNATURE_MISSING` without it); a
 *   `Request-Id` is ignored.
 * - `signed-retry` (§5.3 alone): an unsigned call → `202` whose `payloadToSign` is the quote's own
 *   (the same bytes as in `paymentInstructions`), with a single-use `requestId`; the retry is
 *   checked by the signed-retry rules (signed-retry.ts: `REQUEST_ID_MISSING` for a stamp without
 *   `Request-Id`, same body, one use, 5 minutes). A stamp alone is refused.
 * - `either` (both readings at once, as a service honouring both would): an unsigned call → `202`
 *   as in `signed-retry`; a stamp with `Request-Id` → the signed retry; a stamp without
 *   `Request-Id` → executed at once as in `stamp`.
 * In every mode the stamp is checked before an `Idempotency-Key` replay (strictness 6), and the
 * signer is an active session of the source wallet (or `sandbox-valid-signature`).
 */
import { invalidArgument } from '../errors.js';

/** How quote execution of an embedded-wallet source is signed (see the module comment). */
export type QuoteExecuteMode = 'stamp' | 'signed-retry' | 'either';
/** Every {@link QuoteExecuteMode}. */
export const QUOTE_EXECUTE_MODES: readonly QuoteExecuteMode[] = ['stamp', 'signed-retry', 'either'];
/** The environment variable read when `startSandbox` gets no `quoteExecute`. */
export const QUOTE_EXECUTE_ENV = 'SANDBOX_QUOTE_EXECUTE';

/** The mode to use: the option, else `SANDBOX_QUOTE_EXECUTE`, else `stamp`; a bad value is `INVALID_ARGUMENT`. */
export function resolveQuoteExecute(option: unknown, env: Record<string, string | undefined> = process.env): QuoteExecuteMode {
  const pick = (value: unknown, name: string): QuoteExecuteMode => {
    if (!(QUOTE_EXECUTE_MODES as readonly unknown[]).includes(value)) throw invalidArgument(name, `one of ${QUOTE_EXECUTE_MODES.join(', ')}`);
    return value as QuoteExecuteMode;
  };
  if (option !== undefined) return pick(option, 'options.quoteExecute');
  const fromEnv = env[QUOTE_EXECUTE_ENV];
  return fromEnv === undefined || fromEnv === '' ? 'stamp' : pick(fromEnv, QUOTE_EXECUTE_ENV);
}
