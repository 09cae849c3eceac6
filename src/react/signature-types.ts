'use client';
/** The types of the signature queue (signatures.ts), apart so the provider's context can name them without a cycle. */
import type { OnBeforeSign, SignRequest } from '../transport/index.js';

/** A signature waiting for the user's answer. */
export interface PendingSignature {
  /** What it is for, e.g. `update-internal-account`, `execute-quote`. */
  readonly purpose: string;
  /** The payload about to be signed, parsed when it is JSON (else the text). Show what matters in it. */
  readonly payload: unknown;
  /** The request as the wallet gave it (exact `payloadToSign`, method, path, leg). */
  readonly request: SignRequest;
  /** Signs. */
  approve(): void;
  /** Refuses: the call fails with SIGNING_REFUSED. */
  reject(): void;
}

/** The queue of signatures waiting for the user (see {@link createSignatureRequests}). */
export interface SignatureRequests {
  /** Pass this as `onBeforeSign` to `createWallet`. */
  readonly onBeforeSign: OnBeforeSign;
  /** Calls `listener` when the first pending signature changes; returns the remover. */
  subscribe(listener: () => void): () => void;
  /** The first pending signature, or null (the same object until it is answered). */
  getSnapshot(): PendingSignature | null;
  /** Counts a mounted prompt; returns its release (the last release refuses what is queued). */
  attach(): () => void;
}
