/** Shapes shared by the bench page (bench/page.ts) and the runner (bench/run.ts). */

/** One timed series: every sample in milliseconds, in run order. */
export type Samples = number[];

export interface StampRun {
  payloadBytes: number;
  iterations: number;
  warmup: number;
  /** `crypto.subtle.sign` (ECDSA P-256/SHA-256) over the payload's bytes, encoded beforehand. */
  rawSign: Samples;
  /** `stamp(payload, signer)` with the same key: UTF-8 encode, sign, DER, JSON, base64url. */
  stamp: Samples;
  /** `stamp(payload, await store.signer(hex))`: the key store lookup included (cache hit). */
  stampViaStore: Samples;
  /** `crypto.subtle.sign` over `new TextEncoder().encode(payload)`: what a hand-written client signing the string pays. */
  encodeAndSign: Samples;
  /** Per iteration: stamp / rawSign of the same iteration (they run back to back, order rotating). */
  ratio: number[];
  /** Per iteration: stamp / encodeAndSign. */
  ratioToEncodeAndSign: number[];
  /** Stamps through the store after the first one (warm-up and timed loop). */
  storeStampsAfterFirst: number;
  /** Key store backend reads over those stamps: the goal is 0. */
  storeReadsAfterFirst: number;
  storeCacheHitsAfterFirst: number;
}

export interface KeyStoreRun {
  iterations: number;
  warmup: number;
  /** `generateSessionKey()` alone (WebCrypto generateKey + public key export). */
  generateOnly: Samples;
  /** `store.generate({ purpose: 'session' })`: generate, check the pair, write to IndexedDB. */
  generateAndStore: Samples;
  /** A fresh store whose probe already ran: the first `get` (one IndexedDB read). */
  loadStoredKey: Samples;
  /** A fresh store, nothing run yet: first-use probe (a throw-away key written, read, used, deleted) + the first `get`. */
  loadStoredKeyColdStore: Samples;
  backend: string;
}

export interface BundleRun {
  iterations: number;
  warmup: number;
  /** `buildEncryptedOtpBundle` against the sandbox's target bundle, its signature verified against the enclave key. */
  otpSeal: Samples;
  /** Legacy entry: `openSealedSessionKey` on the vector credentialBundle (base58check, HPKE open, scalar → key import). */
  openSealedSessionKey: Samples;
  /** `openExportBundle` on the vector exportBundle, signature verified. */
  openExportBundle: Samples;
}

export interface ActionSetup {
  accountId: string;
  credentialId: string;
  enclavePublicKey: string;
  otpCode: string;
}

export interface LoginRun {
  ms: number;
  /** HTTP requests the browser made for challenge + two-leg verify. */
  requests: number;
  sessionPublicKeyHex: string;
}

export interface ActionRun {
  iterations: number;
  warmup: number;
  /** One `PATCH /internal-accounts/{id}` signed retry, both legs, browser → proxy → sandbox. */
  latency: Samples;
  /** Each HTTP request's time as the transport measured it (`onRequest` ms: fetch until the body is read). */
  requestMs: Samples;
  /** Per action: latency minus its requests' time (stamping, JSON, key lookup, promise hops in the library). */
  outsideHttpMs: Samples;
  /** Browser-side HTTP requests per action (transport `onRequest`). */
  requestsPerAction: number[];
  /** Key store reads per action, the store reopened after login (a page reload): the first action reads once. */
  storeReadsPerAction: number[];
  statuses: Record<string, number>;
}

export interface PageInfo {
  userAgent: string;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** Smallest non-zero step seen between successive performance.now() readings, in ms. */
  timerStepMs: number;
}

export interface BenchPage {
  info(): PageInfo;
  stampVsRaw(args: { payloadBytes: number; iterations: number; warmup: number }): Promise<StampRun>;
  keyStore(args: { iterations: number; warmup: number }): Promise<KeyStoreRun>;
  bundles(args: { iterations: number; warmup: number; targetBundle: string; enclavePublicKey: string; vectors: BundleVectors }): Promise<BundleRun>;
  login(setup: ActionSetup): Promise<LoginRun>;
  actions(args: { iterations: number; warmup: number; accountId: string }): Promise<ActionRun>;
  /** Plain `fetch('/ping')` + body read, to the bench server itself: the loopback floor for one request. */
  fetchFloor(args: { iterations: number; warmup: number }): Promise<Samples>;
}

export interface BundleVectors {
  credentialBundle: { bundle: string; recipientPrivateKey: string; plaintextPrivateKey: string };
  exportBundle: { bundle: string; recipientPrivateKey: string; mnemonic: string };
}

declare global {
  // The page sets it when bench/page.ts is loaded; the runner calls it through page.evaluate.
  var bench: BenchPage | undefined;
}
