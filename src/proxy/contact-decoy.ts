/**
 * S16 of scope.ts: "taken" and "free" answer alike on the first leg (issue 34, hole 1).
 *
 * A free contact gets the service's signed-retry challenge (`202 {payloadToSign, requestId,
 * expiresAt}`), a taken one its `409 …_ALREADY_EXISTS`. Decision (the proxy cannot make the
 * service's 202 for a taken contact, and cannot know a contact is taken before asking): when the
 * first leg (no `Service-Wallet-Signature`, no `Request-Id`) of any route is answered with a contact
 * conflict and the app gives no `onContactConflict`, the proxy answers a **decoy challenge** built
 * exactly like the challenges it passes on (below), and reveals the conflict (`409
 * CONTACT_UNAVAILABLE`) only to the signed retry of that decoy whose stamp verifies over the decoy's
 * `payloadToSign`. For the free contact the service's signed retry answers `201`/`200`: the real
 * signer of a signed retry learns the answer, as the user changing their own contact must.
 *
 * - **Same shape**: every `202` challenge the proxy passes on is re-made as exactly
 *   `{payloadToSign, requestId, expiresAt}` (spec §2.9, in that order; the wire reference's extra
 *   `type` of auth endpoints is dropped: the library reads only the three), and every signed-retry
 *   refusal (`401 WALLET_SIGNATURE_MISSING / _MALFORMED / _INVALID / _BODY_MISMATCH`,
 *   `REQUEST_ID_MISSING`, `404 REQUEST_NOT_FOUND`) as `{code, reason}` with the proxy's reason for
 *   that code, both with the same headers ({@link sameHeaders}). A decoy's retry is refused with the
 *   same codes, in the service's order (wire reference §4).
 * - **A requestId the proxy recognises without state**: `Request:<uuid v4>` whose 122 free bits hold
 *   a random nonce, the expiry (masked), a tag over the customer, method and path, and a tag over
 *   the body's digest — all HMAC-SHA-256 with a key derived from the client secret (so every
 *   instance of the app recognises the others' decoys). A decoy is valid for the user's customer,
 *   that method and path, and 5 minutes; the same body, else `BODY_MISMATCH`, as the service does.
 * - **What the proxy can check of a signature**: that the stamp is well formed and verifies over the
 *   decoy's payload with the stamp's own key. Whether that key is a session of the wallet it cannot
 *   know (the spec exposes no session key), so "the real signer" is "whoever is signed in and sends a
 *   stamp that verifies": the bit is revealed per signed retry, bounded by `contactRateLimit`, which
 *   runs on every request of the contact routes, retries included. `sandbox-valid-signature` is not
 *   a stamp and is refused (`MALFORMED`): accepting it would answer "taken" to an unsigned probe.
 * - **What it cannot hide**: `payloadToSign` is opaque (spec §5.4: signed byte for byte, no format);
 *   the decoy's is base64url, not the service's format, so a client that reads the service's
 *   private payload format can tell a decoy (e.g. the sandbox's JSON). A decoy is not single use
 *   (no state): its retries keep answering the conflict where the service would say used; both only
 *   after a stamp that verifies.
 *   Decision: the payload's format is not imitated. Only the service can make its payload (the
 *   sandbox's names the request id, the wallet's organization and the body's digest); a copy would
 *   read a format the spec keeps opaque and break when it changes, and an app-supplied payload maker
 *   would move that reliance into the app without making it sound. What bounds the tell: the prober
 *   is a signed-in user who has seen a real challenge of that route, and the app's `contactRateLimit`
 *   sees every request of the contact routes. Closing it needs the service to answer a taken
 *   contact's first leg with a challenge of its own.
 */
import { base64urlEncode } from '../crypto/base64url.js';
import { hexToBytes } from '../crypto/encoding.js';
import { parseStamp, verifySignature } from '../crypto/verify.js';

const LABEL = 'embedded-wallet-signer/proxy contact decoy v1';
/** How long a decoy challenge is valid (the service's challenges: about 5 minutes, wire §4). */
export const DECOY_TTL_MS = 5 * 60 * 1000;
/** Length of a decoy's payloadToSign, in base64url characters. */
const PAYLOAD_CHARS = 344;

/** The signed-retry refusals the proxy re-makes, with its one reason each. */
export const RETRY_REFUSALS: Readonly<Record<string, readonly [number, string]>> = {
  WALLET_SIGNATURE_MISSING: [401, 'The Service-Wallet-Signature header is missing.'],
  REQUEST_ID_MISSING: [401, 'The Request-Id header is missing.'],
  WALLET_SIGNATURE_MALFORMED: [401, 'The Service-Wallet-Signature header cannot be read.'],
  REQUEST_NOT_FOUND: [404, 'No such request: start again from the first call.'],
  WALLET_SIGNATURE_INVALID: [401, 'The signature was not accepted: start again from the first call.'],
  WALLET_SIGNATURE_BODY_MISMATCH: [401, 'The signed retry must carry the body of the first call.'],
};

/**
 * The headers of every answer S16 makes alike: no `Retry-After` (a challenge or a refusal is not a
 * "try later"), the service's `date` when it answered (else the proxy's clock).
 */
export function sameHeaders(date: string | null = null): Headers {
  return new Headers({ 'cache-control': 'no-store', 'content-type': 'application/json', date: date ?? new Date().toUTCString() });
}

/** A signed-retry refusal as the proxy makes it (one reason per code, the same headers). */
export function retryRefusal(code: keyof typeof RETRY_REFUSALS, date: string | null = null): Response {
  const [status, reason] = RETRY_REFUSALS[code] as readonly [number, string];
  return new Response(JSON.stringify({ code, reason }), { status, headers: sameHeaders(date) });
}

/** A challenge as the proxy passes it on: the spec's three fields, in order, the same headers. */
export function challengeResponse(payloadToSign: string, requestId: string, expiresAt: string, date: string | null = null): Response {
  return new Response(JSON.stringify({ payloadToSign, requestId, expiresAt }), { status: 202, headers: sameHeaders(date) });
}

/** Who and what a decoy is bound to. */
export interface DecoyCall {
  readonly customerId: string;
  readonly method: string;
  readonly path: string;
  readonly body: Uint8Array;
  /** The matched rule (`METHOD pattern`): whose challenges' payload length the decoy takes. */
  readonly route: string;
}

/** What the retry of a decoy comes to: not a decoy (forward it), a refusal, or the conflict. */
export interface DecoyRetry {
  /** The request names one of our decoys (it is not forwarded). */
  readonly decoy: boolean;
  /** Its refusal; absent when the stamp verifies (the conflict is answered). */
  readonly refusal?: Response;
}

export interface Decoys {
  /** The decoy challenge for a first leg answered with a contact conflict (`date`: the conflict's). */
  issue(call: DecoyCall, date?: string | null): Promise<Response>;
  /** Judges a request carrying `Request-Id`: is it the retry of one of our decoys, and does it pass. */
  retry(call: DecoyCall, requestId: string, stamp: string | null): Promise<DecoyRetry>;
  /** The service's challenge or signed-retry refusal re-made as S16 says; `undefined` for any other answer. */
  alike(status: number, payload: Uint8Array, route: string, date?: string | null): Response | undefined;
}

const encoder = new TextEncoder();

/** S16's decoys, keyed by the client secret. `now` is the clock (tests pass their own). */
export function decoys(secret: string, now: () => number = Date.now): Decoys {
  let derived: Promise<CryptoKey> | undefined;
  const hmacKey = (bytes: Uint8Array<ArrayBuffer>) => crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = async (...parts: (string | Uint8Array)[]): Promise<Uint8Array> => {
    derived ??= (async () => hmacKey(new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(encoder.encode(secret)), encoder.encode(LABEL)))))();
    const joined: number[] = [];
    for (const part of parts) {
      const bytes = typeof part === 'string' ? encoder.encode(part) : part;
      joined.push(...encoder.encode(String(bytes.length)), 0, ...bytes);
    }
    return new Uint8Array(await crypto.subtle.sign('HMAC', await derived, new Uint8Array(joined)));
  };
  const digest = async (body: Uint8Array): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(body)));
  // The decoy's id takes the shape of the last challenge id the service gave (`Request:<uuid>`, wire
  // §1, until one is seen; `request_<32 hex>` in the spec-minimal sandbox): one value, no per-request state.
  let underscored = false;
  // And its payload the length of the route's last challenge (one number per rule of the table).
  const lengths = new Map<string, number>();
  const who = (call: DecoyCall): string => `${call.customerId}\u0000${call.method}\u0000${call.path}`;

  /** uuid bytes: [0..3] tag, [4..5] body tag, [6..11] nonce (version and variant bits in it), [12..15] masked expiry. */
  const build = async (call: DecoyCall, nonce: Uint8Array, expirySeconds: number): Promise<Uint8Array> => {
    const id = new Uint8Array(16);
    id.set(nonce, 6);
    id[6] = ((id[6] as number) & 0x0f) | 0x40;
    id[8] = ((id[8] as number) & 0x3f) | 0x80;
    const fixedNonce = id.slice(6, 12);
    const expiry = new Uint8Array(4);
    new DataView(expiry.buffer).setUint32(0, expirySeconds);
    id.set((await mac('tag', fixedNonce, expiry, who(call))).slice(0, 4), 0);
    id.set((await mac('body', fixedNonce, await digest(call.body))).slice(0, 2), 4);
    id.set(await masked(fixedNonce, expiry), 12);
    return id;
  };
  /** The expiry's 4 bytes XOR the nonce's mask (both ways: masking and unmasking). */
  const masked = async (nonce: Uint8Array, bytes: Uint8Array): Promise<Uint8Array> => {
    const mask = await mac('mask', nonce);
    return bytes.map((b, i) => b ^ (mask[i] as number));
  };
  /** The expiry's seconds, unmasked from an id. */
  const secondsOf = async (id: Uint8Array): Promise<number> => new DataView((await masked(id.slice(6, 12), id.slice(12, 16))).buffer).getUint32(0);
  /** The expiry in ms: the id's seconds, and a millisecond part drawn from the nonce (no `.000` tell). */
  const expiryOf = async (id: Uint8Array): Promise<number> => {
    const ms = await mac('ms', id.slice(6, 12));
    return (await secondsOf(id)) * 1000 + (((ms[0] as number) * 256 + (ms[1] as number)) % 1000);
  };
  const payloadOf = async (requestId: string, length: number): Promise<string> => {
    let out = '';
    for (let i = 0; out.length < length; i++) out += base64urlEncode(await mac('payload', requestId, String(i)));
    return out.slice(0, length);
  };

  return {
    async issue(call, date = null) {
      // On the service's clock when it answered (its Date, to the second, plus the proxy's ms), as
      // the service's own expiresAt is: the library and an observer read expiresAt against Date.
      const served = Date.parse(String(date)); // null: NaN, the proxy's clock
      const base = Number.isFinite(served) ? served + (now() % 1000) : now();
      const id = await build(call, crypto.getRandomValues(new Uint8Array(6)), Math.floor((base + DECOY_TTL_MS) / 1000));
      const requestId = underscored ? `request_${uuid(id).replaceAll('-', '')}` : `Request:${uuid(id)}`;
      return challengeResponse(await payloadOf(requestId, lengths.get(call.route) ?? PAYLOAD_CHARS), requestId, new Date(await expiryOf(id)).toISOString(), date);
    },
    async retry(call, requestId, stamp) {
      const id = uuidBytes(requestId);
      if (id === undefined) return { decoy: false };
      const expected = await build(call, id.slice(6, 12), await secondsOf(id));
      if (!sameBytes(expected.subarray(0, 4), id.subarray(0, 4))) return { decoy: false };
      // The service's order (wire §4, src/sandbox/signed-retry.ts): stamp present, readable; the
      // request's life; the body; the signature.
      if (stamp === null) return { decoy: true, refusal: retryRefusal('WALLET_SIGNATURE_MISSING') };
      let parsed: { publicKey: string; signature: string };
      try {
        parsed = parseStamp(stamp);
      } catch {
        return { decoy: true, refusal: retryRefusal('WALLET_SIGNATURE_MALFORMED') };
      }
      if ((await expiryOf(id)) <= now()) return { decoy: true, refusal: retryRefusal('WALLET_SIGNATURE_INVALID') };
      if (!sameBytes(expected.subarray(4, 6), id.subarray(4, 6))) return { decoy: true, refusal: retryRefusal('WALLET_SIGNATURE_BODY_MISMATCH') };
      // verifySignature throws only for a key off the curve or a signature that is not strict DER,
      // which parseStamp refused above (MALFORMED): here it answers true or false.
      const valid = await verifySignature(parsed.publicKey, hexToBytes(parsed.signature), encoder.encode(await payloadOf(requestId, lengths.get(call.route) ?? PAYLOAD_CHARS)));
      return valid ? { decoy: true } : { decoy: true, refusal: retryRefusal('WALLET_SIGNATURE_INVALID') };
    },
    alike(status, payload, route, date = null) {
      // JSON's null has no fields; a string, number or array has none of these four.
      let fields: Record<string, unknown>;
      try {
        fields = (JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown> | null) ?? {};
      } catch {
        return undefined;
      }
      const { payloadToSign, requestId, expiresAt, code } = fields;
      if (status === 202 && typeof payloadToSign === 'string' && typeof requestId === 'string' && typeof expiresAt === 'string') {
        if (uuidBytes(requestId) !== undefined) underscored = requestId.startsWith('request_');
        lengths.set(route, payloadToSign.length);
        return challengeResponse(payloadToSign, requestId, expiresAt, date);
      }
      if (typeof code === 'string' && Object.hasOwn(RETRY_REFUSALS, code) && RETRY_REFUSALS[code]?.[0] === status) return retryRefusal(code, date);
      return undefined;
    },
  };
}

/** Equal slices (the callers compare slices of one length). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.every((v, i) => v === b[i]);
}

function uuid(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The 16 bytes of a `Request:<uuid v4>` or `request_<32 hex>` id, or undefined for any other shape. */
function uuidBytes(requestId: string): Uint8Array | undefined {
  const match =
    /^Request:([0-9a-f]{8})-([0-9a-f]{4})-(4[0-9a-f]{3})-([89ab][0-9a-f]{3})-([0-9a-f]{12})$/.exec(requestId) ??
    /^request_([0-9a-f]{8})([0-9a-f]{4})(4[0-9a-f]{3})([89ab][0-9a-f]{3})([0-9a-f]{12})$/.exec(requestId);
  if (match === null) return undefined;
  const hex = match.slice(1).join('');
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
}
