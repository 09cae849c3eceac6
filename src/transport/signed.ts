/**
 * The signed-retry engine (wire reference §4): first leg without signature; each `202` challenge is
 * shown to onBeforeSign, stamped with the signer resolved after the prompt (getSigner is asked
 * again then) and answered on the next leg with the stamp and `Request-Id`; the same body string goes on every leg. A `200 {"status":"PROCESSING"}`
 * leg is resent identically (bounded); a challenge that expired before signing (server clock), or
 * whose signed leg the service rejects once it has expired, makes the call start over from leg 1
 * once (unless the call says `restartOnExpiry: false`), then CHALLENGE_EXPIRED. Each call answers
 * exactly the challenges its action needs (`challenges`: 1, or 2 for delegated keys; 0 for the
 * stamped single-leg form); one more → UNEXPECTED_CHALLENGE before anything else is signed.
 * Requests per action: 2 (3 for delegated keys), plus only those retries.
 */
import { stamp } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import { parseJsonBody } from './errors.js';
import { isHeaderValue } from './headers.js';
import { exchange, serverDateOf, sleep, type ClientConfig, type LegAnswer, type LegHeaders, type PreparedCall } from './http.js';
import type { SignRequest, SignedRequestOptions, SignerLike } from './types.js';
import { isRecord } from '../types.js';

/**
 * Decision: the server's clock is known to within its Date header's one-second resolution, so a
 * challenge counts as expired when less than this margin is left on the server's clock.
 */
const EXPIRY_MARGIN_MS = 1000;
const MAX_PROCESSING_BACKOFF_MS = 2000;

interface Challenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: string;
  expiresAtMs: number;
}

function parseChallenge(status: number, body: unknown): Challenge {
  if (!isRecord(body)) throw new WalletError('BAD_RESPONSE', '202 answer is not a challenge object', { status });
  const { payloadToSign, requestId, expiresAt } = body;
  if (typeof payloadToSign !== 'string' || payloadToSign === '' || typeof requestId !== 'string' || requestId === '') {
    throw new WalletError('BAD_RESPONSE', '202 challenge without payloadToSign and requestId', { status });
  }
  // The request id goes back in the Request-Id header: one that cannot be a header value, or that the
  // header would change (fetch trims surrounding whitespace), is not a challenge we can answer.
  if (!isHeaderValue(requestId) || requestId.trim() !== requestId) throw new WalletError('BAD_RESPONSE', '202 challenge with a requestId that cannot be sent as a header', { status });
  const expiresAtMs = typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.NaN;
  if (typeof expiresAt !== 'string' || !Number.isFinite(expiresAtMs)) {
    throw new WalletError('BAD_RESPONSE', '202 challenge without a valid expiresAt', { status });
  }
  return { payloadToSign, requestId, expiresAt, expiresAtMs };
}

/**
 * Decision on telling a "still processing, send again" answer from a real resource: only a `200`
 * whose body is an object with `status: "PROCESSING"` and no `id`. Every resource the service
 * returns in PROCESSING state (a quote after execute, a card being provisioned) carries an `id`,
 * so those are returned to the caller as results.
 */
export function isProcessingAnswer(status: number, body: unknown): boolean {
  return status === 200 && isRecord(body) && body.status === 'PROCESSING' && !('id' in body);
}

/**
 * Whether the challenge has expired, judged on the server's clock: local now shifted by the skew
 * measured when the challenge arrived (server Date − local receipt time). Decision: without a Date
 * header (e.g. not exposed across origins) the skew is unknown and the server is left to judge;
 * judging on a possibly skewed local clock could refuse every challenge.
 */
function hasExpired(config: ClientConfig, challenge: Challenge, answer: LegAnswer): boolean {
  if (answer.serverDate === undefined) return false;
  const skew = answer.serverDate - answer.receivedAt;
  return challenge.expiresAtMs - (config.now() + skew) < EXPIRY_MARGIN_MS;
}

/**
 * A signed leg refused with `401 WALLET_SIGNATURE_INVALID` once the challenge has expired: the
 * challenge expired on the way (e.g. the leg waited in a queue). Treated like an expiry seen before
 * signing: start over (once). Decision: judged from what the contract guarantees — `expiresAt` and
 * the server's clock: the refusal's own Date header, else the local clock shifted by the skew the
 * challenge's Date header showed, else the local clock — not from the sandbox's explanation
 * (`details.requestStatus`), which the service does not send. A refusal before `expiresAt` is a real
 * signature failure and passes through; a misjudged one (no Date header and a local clock far ahead)
 * costs one restart, whose fresh challenge then decides.
 */
function isExpiredRejection(config: ClientConfig, challenge: Challenge, answer: LegAnswer, error: unknown): boolean {
  if (!isWalletError(error, 'WALLET_SIGNATURE_INVALID') || error.status !== 401) return false;
  const skew = answer.serverDate === undefined ? 0 : answer.serverDate - answer.receivedAt;
  const serverNow = serverDateOf(error) ?? config.now() + skew;
  return challenge.expiresAtMs - serverNow < EXPIRY_MARGIN_MS;
}

class RestartSignal {
  constructor(readonly expiredAt: string) {}
}

type Prompt = Omit<SignRequest, 'automatic' | 'signal'>;

function cancelled(reason: unknown): WalletError {
  return isWalletError(reason) ? reason : new WalletError('ABORTED', 'signing was cancelled', { cause: reason });
}

/**
 * Asks onBeforeSign, for a bounded time. Decision: the hook gets an AbortSignal that fires when the
 * library stops waiting (the bound passed, the call's signal or its signingSignal fired); an answer
 * after that is ignored. A refusal, a throw or the bound passing fail this call only
 * (SIGNING_REFUSED); a cancellation is ABORTED. Nothing else waits on the prompt.
 */
async function confirm(config: ClientConfig, call: PreparedCall, options: SignedRequestOptions, request: Prompt): Promise<void> {
  const stops = [call.signal, options.signingSignal].filter((s): s is AbortSignal => s !== undefined);
  const stopped = stops.find((s) => s.aborted);
  if (stopped) throw cancelled(stopped.reason);
  const hook = options.onBeforeSign ?? config.onBeforeSign;
  // Approved before the call was made (a logout ending its own sessions): nothing waits on a user.
  if (!hook || options.approved === true) return;
  const automatic = options.automatic === true;
  const timeoutMs = automatic ? config.automaticSignTimeoutMs : config.onBeforeSignTimeoutMs;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onStop: (() => void) | undefined;
  const verdict = new Promise<boolean | void>((resolve, reject) => {
    timer = setTimeout(() => {
      const error = new WalletError('SIGNING_REFUSED', `onBeforeSign did not answer within ${timeoutMs} ms`, { details: { timeoutMs } });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    onStop = () => {
      const reason = stops.find((s) => s.aborted)?.reason;
      controller.abort(reason);
      reject(cancelled(reason));
    };
    for (const s of stops) s.addEventListener('abort', onStop, { once: true });
    Promise.resolve()
      .then(() => hook({ ...request, automatic, signal: controller.signal }))
      .then(resolve, (cause: unknown) => reject(new WalletError('SIGNING_REFUSED', 'onBeforeSign refused to sign', { cause })));
  });
  try {
    if ((await verdict) === false) throw new WalletError('SIGNING_REFUSED', 'onBeforeSign refused to sign');
  } finally {
    clearTimeout(timer);
    for (const s of stops) if (onStop) s.removeEventListener('abort', onStop);
  }
  // Cancelled while the hook was answering: nothing is signed.
  if (options.signingSignal?.aborted) throw cancelled(options.signingSignal.reason);
}

async function stampWith(payload: string, signer: SignerLike): Promise<string> {
  try {
    return await stamp(payload, signer);
  } catch (cause) {
    if (isWalletError(cause)) throw cause;
    throw new WalletError('SIGNER_FAILED', 'the signer threw while signing', { cause });
  }
}

/**
 * How many challenges a call answers: `options.challenges` when given (1 or 2), else 0 for the
 * single-leg stamped form (it has no challenge) and 1 for everything else. Only delegated-key
 * creation needs 2.
 */
function allowedChallenges(options: SignedRequestOptions): number {
  const { challenges } = options;
  if (challenges === undefined) return options.stampOnly !== undefined ? 0 : 1;
  if (challenges !== 1 && challenges !== 2) throw new WalletError('INVALID_ARGUMENT', 'challenges must be 1 or 2');
  return challenges;
}

export async function runSigned(config: ClientConfig, call: PreparedCall, options: SignedRequestOptions): Promise<unknown> {
  const allowed = allowedChallenges(options);
  /**
   * The signer: `signer`, else `getSigner()` asked twice per signature — before the prompt (a call
   * that cannot be signed fails before the user is asked) and again after it, just before stamping.
   * The second answer signs: a session refreshed, ended or logged out while the prompt was open is
   * seen then (issue 22: the signer is resolved after the prompt, never only before it).
   */
  const resolveSigner = async (): Promise<SignerLike> => {
    if (options.signer) return options.signer;
    if (!options.getSigner) throw new WalletError('INVALID_ARGUMENT', 'signed() needs signer or getSigner');
    let signer: SignerLike;
    try {
      signer = await options.getSigner();
    } catch (cause) {
      if (isWalletError(cause)) throw cause;
      throw new WalletError('SIGNER_FAILED', 'getSigner threw', { cause });
    }
    if (typeof signer !== 'object' || signer === null) throw new WalletError('SIGNER_FAILED', 'getSigner returned no signer');
    return signer;
  };

  /**
   * Stamps `payload` unless signing was cancelled: signingSignal is checked just before the stamp is
   * made and again once it is made, just before its leg leaves (I2: a logout cancels every signature
   * not yet sent, one being stamped when the logout comes included).
   */
  const signNow = async (payload: string, signer: SignerLike): Promise<string> => {
    if (options.signingSignal?.aborted) throw cancelled(options.signingSignal.reason);
    const signature = await stampWith(payload, signer);
    if (options.signingSignal?.aborted) throw cancelled(options.signingSignal.reason);
    return signature;
  };

  /** Sends one leg and resends it identically while the answer is PROCESSING. */
  const sendLeg = async (leg: LegHeaders): Promise<{ answer: LegAnswer; body: unknown }> => {
    for (let resends = 0; ; resends++) {
      const answer = await exchange(config, call, leg);
      const body = answer.status === 204 || answer.status === 205 ? undefined : parseJsonBody(answer.status, answer.text);
      if (!isProcessingAnswer(answer.status, body)) return { answer, body };
      if (resends >= config.maxProcessingResends) {
        throw new WalletError('STILL_PROCESSING', `still PROCESSING after ${resends} resends`, { status: answer.status });
      }
      await sleep(Math.min(config.processingBackoffMs * (resends + 1), MAX_PROCESSING_BACKOFF_MS), call.signal);
    }
  };

  const firstLeg = async (): Promise<LegHeaders> => {
    const leg: LegHeaders = { leg: 1 };
    if (options.requestId !== undefined) leg.requestId = options.requestId;
    if (options.stampOnly !== undefined) {
      await resolveSigner();
      await confirm(config, call, options, { payloadToSign: options.stampOnly, method: call.method, path: call.path, purpose: options.purpose, leg: 1 });
      leg.signature = await signNow(options.stampOnly, await resolveSigner());
      leg.stop = options.signingSignal;
    }
    return leg;
  };

  /** One pass from leg 1 to the final answer; throws RestartSignal when a challenge expired unsigned. */
  const attempt = async (): Promise<unknown> => {
    let { answer, body } = await sendLeg(await firstLeg());
    for (let challenges = 0; answer.status === 202; challenges++) {
      // Deny by default: a server that asks for one signature more than the action needs gets none.
      if (challenges >= allowed) {
        throw new WalletError('UNEXPECTED_CHALLENGE', `${options.purpose} answers ${allowed} challenge${allowed === 1 ? '' : 's'}; the server asked for another`, {
          status: 202,
          details: { purpose: options.purpose, allowed },
        });
      }
      const challenge = parseChallenge(answer.status, body);
      if (hasExpired(config, challenge, answer)) throw new RestartSignal(challenge.expiresAt);
      await resolveSigner();
      const leg = challenges + 2;
      await confirm(config, call, options, {
        payloadToSign: challenge.payloadToSign,
        method: call.method,
        path: call.path,
        purpose: options.purpose,
        leg,
        requestId: challenge.requestId,
        expiresAt: challenge.expiresAt,
      });
      // The hook may have waited on the user: judge expiry again just before signing.
      if (hasExpired(config, challenge, answer)) throw new RestartSignal(challenge.expiresAt);
      // Who signs is decided now, after the prompt: the session current when the leg is sent.
      const signature = await signNow(challenge.payloadToSign, await resolveSigner());
      try {
        ({ answer, body } = await sendLeg({ leg, signature, requestId: challenge.requestId, stop: options.signingSignal }));
      } catch (error) {
        if (isExpiredRejection(config, challenge, answer, error)) throw new RestartSignal(challenge.expiresAt);
        throw error;
      }
    }
    return body;
  };

  try {
    return await attempt();
  } catch (first) {
    if (!(first instanceof RestartSignal)) throw first;
    if (options.restartOnExpiry === false) {
      throw new WalletError('CHALLENGE_EXPIRED', `the challenge expired (at ${first.expiredAt}) before the signed leg was accepted; this call does not start over`);
    }
  }
  // Start over from leg 1, once.
  try {
    return await attempt();
  } catch (second) {
    if (second instanceof RestartSignal) {
      throw new WalletError('CHALLENGE_EXPIRED', `the challenge expired (at ${second.expiredAt}) before it could be signed, twice`);
    }
    throw second;
  }
}
