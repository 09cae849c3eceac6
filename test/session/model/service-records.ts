/**
 * What the scripted service of the session model test keeps (scripted-service.ts): the sessions it
 * made, the requests it holds until the test answers them, and every DELETE that left the browser.
 */
import type { SessionSigner } from '../../../src/session/service.js';

export type Origin = 'login' | 'refresh' | 'elsewhere';

export interface ServiceSession {
  id: string;
  accountId: string;
  publicKeyHex: string;
  origin: Origin;
  createdAt: number;
  expiresAt: number;
  /** Who ended it: a tab of this browser (which one), or another device. */
  ended?: { by: 'browser' | 'elsewhere'; at: number; tab?: number };
  /** The tab whose request made it. */
  tab: number;
  /** The answer that created it reached the browser. */
  delivered: boolean;
  /** The test's step counter when the login that made it started (-1 for refreshes). */
  startedAt: number;
  /** Its tab closed after the answer came but before the session was stored or undone. */
  orphaned: boolean;
  /** A request of this browser to end it never arrived (refused at the prompt, dropped, or its tab closed first). */
  endLost: boolean;
  /** A request of this browser to end it was refused by the app's proxy (401 LOGIN_REQUIRED, 403): it must stay a pending end. */
  endRefused?: boolean;
  /** For a refresh's session: the session it refreshed. */
  refreshedFrom?: string;
}

/** `forbid`: the app's proxy refuses a request on the wire (401 LOGIN_REQUIRED or 403 FORBIDDEN), the service never sees it. */
export type Answer = 'deliver' | 'lose' | 'drop' | 'refuse' | 'timeout' | 'forbid';

export interface Pending {
  tab: number;
  kind: 'list' | 'end' | 'refresh' | 'login' | 'action';
  /** 'prompt': the signature is not sent yet (onBeforeSign); 'signing': approved, the signer being resolved; 'wire': sent, awaiting processing. */
  stage: 'prompt' | 'signing' | 'wire';
  /** Who signs: given, or asked after the prompt (as the transport's getSigner). */
  signer?: SessionSigner;
  /** The key the request was signed with, once it left. */
  signedBy?: string;
  process: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  refreshOf?: string;
  endOf?: string;
  /** The account the signature is for, and the step its call started at. */
  account?: string;
  startedAt?: number;
  /** The account's stored logout nonce when the app's call started (S6). */
  startNonce?: string | undefined;
  /** Approved before it was made (a logout's or an undo's end): no prompt, no S6 check. */
  approved?: boolean;
  /** An end: the `logout()` call whose work asked for it (harness.ts `logoutCall`), and its DELETE once sent. */
  logout?: number | undefined;
  sent?: EndSent;
}

/** A DELETE of a session that left the browser (S14), and how it was answered. */
export interface EndSent {
  tab: number;
  sessionId: string;
  /** The `logout()` call that sent it; undefined for any other work (a refresh's undo, a background finish, a load). */
  logout: number | undefined;
  /** Orders DELETEs and answers. */
  seq: number;
  /** `ended`: 2xx; `gone`: 404; `lost`: processed, answer lost; `other`: another refusal of the service. */
  answer?: { seq: number; outcome: 'ended' | 'gone' | 'refused' | 'dropped' | 'lost' | 'other' };
}
