/**
 * Delegated signing keys (spec §3.6, §4.5, §5.4; wire-reference §8.4).
 *
 * - `POST /auth/delegated-keys` `{cardId, internalAccountId, nickname}` — the same body on all three
 *   legs (else `401 WALLET_SIGNATURE_BODY_MISMATCH`), signed by an active session of the wallet:
 *   leg 1 (no signature headers) → `202`; leg 2 (stamp + `Request-Id`) → a second `202` with a new
 *   payload and request id; leg 3 (stamped with the same key as leg 2) → `201 DelegatedKey`
 *   `{id, cardId, fundingSourceId, accountId, publicKey, nickname, status: "ACTIVE", createdAt,
 *   updatedAt}`. The delegated key pair is made by the sandbox; its private key never leaves.
 * - The key is created `PENDING` on leg 1 (spec §3.6: "a signer identity exists with no policies")
 *   and becomes `ACTIVE` on leg 3; an abandoned `PENDING` key stays listed and never blocks.
 * - One `ACTIVE` key per card funding source: checked on every leg → `409 CONFLICT` with
 *   `details.cause = "DELEGATED_KEY_ALREADY_ACTIVE"` and the active key's id (decided here: spec
 *   §7.4's generic state-conflict code; the cause names the rule). A `PENDING` key revoked before
 *   leg 3 → `409 CONFLICT`, `details.cause = "DELEGATED_KEY_NOT_PENDING"`.
 * - Checks: unknown card → `404 NOT_FOUND`; unknown account → `404 ACCOUNT_NOT_FOUND`; an account
 *   that is not an embedded wallet, or not the card's funding source → `400 INVALID_INPUT`.
 *   `fundingSourceId` is the card's funding source (in the sandbox, that internal account's id).
 * - `GET /auth/delegated-keys?accountId=&fundingSourceId=` (at least one, `400 INVALID_INPUT`
 *   otherwise; both combine) → list shape of spec §2.1, newest first, `PENDING` and `REVOKED`
 *   included. `GET /auth/delegated-keys/{id}` → `200 DelegatedKey` (`404 NOT_FOUND`).
 * - `DELETE /auth/delegated-keys/{id}` → `200 DelegatedKey` `REVOKED`. Decided here: platform
 *   credentials alone authorize it (spec §5.3 lists delegated-key *creation* among signed actions,
 *   not revocation); a `PENDING` key can be revoked too, and revoking a revoked key answers the
 *   same `200` (idempotent).
 */
import { present } from '../present.js';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { json, type RequestContext, type SandboxState } from '../context.js';
import { base64urlToBytes, bytesToHex } from '../crypto/encoding.js';
import { compressPoint } from '../crypto/p256.js';
import { requireCard } from '../domain/cards.js';
import { conflict, invalidField, invalidInput, notFound, type FieldError } from '../errors.js';
import { paginate } from '../list.js';
import { requireProvisionedWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { issueChallenge, verifyRetry } from '../signed-retry.js';
import { newId, type SignerRule, type Store } from '../store.js';
import { Fields } from '../validate.js';

export type DelegatedKeyStatus = 'PENDING' | 'ACTIVE' | 'REVOKED';

export interface DelegatedKeyRecord {
  id: string;
  cardId: string;
  fundingSourceId: string;
  accountId: string;
  /** Compressed hex of the delegated public key. */
  publicKey: string;
  /** Held by the sandbox only; never in a view. */
  privateKey: KeyObject;
  nickname: string;
  status: DelegatedKeyStatus;
  createdAt: number;
  updatedAt: number;
}

const MAX_PARAM = 200;

function delegatedKeys(store: Store): Map<string, DelegatedKeyRecord> {
  return store.collection<DelegatedKeyRecord>('delegatedKeys');
}

export function delegatedKeyView(k: DelegatedKeyRecord): Record<string, unknown> {
  return present('DelegatedKey', {
    id: k.id,
    cardId: k.cardId,
    fundingSourceId: k.fundingSourceId,
    accountId: k.accountId,
    publicKey: k.publicKey,
    nickname: k.nickname,
    status: k.status,
    createdAt: new Date(k.createdAt).toISOString(),
    updatedAt: new Date(k.updatedAt).toISOString(),
  });
}

function newKeyPair(): { publicKey: string; privateKey: KeyObject } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = pair.publicKey.export({ format: 'jwk' });
  const x = base64urlToBytes(jwk.x ?? '');
  const y = base64urlToBytes(jwk.y ?? '');
  if (x === undefined || y === undefined || x.length !== 32 || y.length !== 32) throw new Error('delegated key export failed');
  return { publicKey: bytesToHex(compressPoint(new Uint8Array([4, ...x, ...y]))), privateKey: pair.privateKey };
}

function assertNoActiveKey(state: SandboxState, fundingSourceId: string): void {
  for (const k of delegatedKeys(state.store).values()) {
    if (k.fundingSourceId === fundingSourceId && k.status === 'ACTIVE') {
      throw conflict('CONFLICT', 'The card funding source already has an ACTIVE delegated key: revoke it first', {
        cause: 'DELEGATED_KEY_ALREADY_ACTIVE',
        delegatedKeyId: k.id,
      });
    }
  }
}

interface CreateRequest {
  cardId: string;
  internalAccountId: string;
  nickname: string;
}

function parseCreate(body: unknown): CreateRequest {
  const f = Fields.of(body);
  f.onlyKnown(['cardId', 'internalAccountId', 'nickname']);
  const cardId = f.string('cardId', { required: true, max: MAX_PARAM });
  const internalAccountId = f.string('internalAccountId', { required: true, max: MAX_PARAM });
  const nickname = f.string('nickname', { required: true, max: 100 });
  f.done();
  return { cardId: f.req(cardId), internalAccountId: f.req(internalAccountId), nickname: f.req(nickname) };
}

function createDelegatedKey(ctx: RequestContext) {
  const { state } = ctx;
  const retry = verifyRetry(ctx);
  const req = parseCreate(ctx.body);
  const wallet = requireProvisionedWallet(state, req.internalAccountId, 'internalAccountId');
  const card = requireCard(state, req.cardId);
  if (card.fundingSource !== wallet.id) throw invalidField('internalAccountId', 'CONFLICT', "must be the card's funding source");
  const signer: SignerRule = { kind: 'session', accountIds: [wallet.id] };
  assertNoActiveKey(state, card.fundingSource);
  const now = state.clock.now();

  if (retry === null) {
    const pair = newKeyPair();
    const key: DelegatedKeyRecord = {
      id: newId('DelegatedKey'),
      cardId: card.id,
      fundingSourceId: card.fundingSource,
      accountId: wallet.id,
      publicKey: pair.publicKey,
      privateKey: pair.privateKey,
      nickname: req.nickname,
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
    };
    delegatedKeys(state.store).set(key.id, key);
    return issueChallenge(ctx, {
      type: 'CREATE_DELEGATED_KEY',
      organizationId: wallet.organizationId,
      parameters: { delegatedKeyId: key.id, cardId: card.id, internalAccountId: wallet.id, nickname: req.nickname, publicKey: key.publicKey },
      signer,
      stage: 'leg2',
      context: key.id,
    });
  }

  const key = delegatedKeys(state.store).get(retry.context as string);
  if (key === undefined || key.status !== 'PENDING') {
    throw conflict('CONFLICT', 'The delegated key of this request is no longer pending: start again', { cause: 'DELEGATED_KEY_NOT_PENDING' });
  }
  if (retry.stage === 'leg2') {
    return issueChallenge(ctx, {
      type: 'CREATE_DELEGATED_KEY_POLICY',
      organizationId: wallet.organizationId,
      parameters: { delegatedKeyId: key.id, cardId: card.id, fundingSourceId: key.fundingSourceId, publicKey: key.publicKey },
      // Leg 3 must be signed with the key that signed leg 2 (any allowed key after the literal).
      signer: retry.publicKey === null ? signer : { ...signer, publicKey: retry.publicKey },
      stage: 'leg3',
      context: key.id,
    });
  }
  key.status = 'ACTIVE';
  key.updatedAt = now;
  return json(201, delegatedKeyView(key));
}

function listDelegatedKeys(ctx: RequestContext) {
  const accountId = ctx.query.get('accountId');
  const fundingSourceId = ctx.query.get('fundingSourceId');
  const errors: FieldError[] = [];
  if (accountId === null && fundingSourceId === null) {
    for (const field of ['accountId', 'fundingSourceId']) errors.push({ field, constraint: 'REQUIRED', message: 'accountId or fundingSourceId is required' });
  }
  for (const [field, value] of [['accountId', accountId], ['fundingSourceId', fundingSourceId]] as const) {
    if (value !== null && (value.length === 0 || value.length > MAX_PARAM)) errors.push({ field, constraint: 'LENGTH', message: `must be 1–${MAX_PARAM} characters long` });
  }
  if (errors.length > 0) throw invalidInput('The query has invalid parameters', errors);
  const items = [...delegatedKeys(ctx.state.store).values()]
    .filter((k) => (accountId === null || k.accountId === accountId) && (fundingSourceId === null || k.fundingSourceId === fundingSourceId))
    .reverse();
  return json(200, paginate(items, ctx.query, delegatedKeyView));
}

function requireDelegatedKey(ctx: RequestContext): DelegatedKeyRecord {
  const id = ctx.param('id');
  const key = delegatedKeys(ctx.state.store).get(id);
  if (key === undefined) throw notFound('NOT_FOUND', `Delegated key ${id} was not found`);
  return key;
}

function revokeDelegatedKey(ctx: RequestContext) {
  const key = requireDelegatedKey(ctx);
  if (key.status !== 'REVOKED') {
    key.status = 'REVOKED';
    key.updatedAt = ctx.state.clock.now();
  }
  return json(200, delegatedKeyView(key));
}

export function registerDelegatedKeyRoutes(router: Router): void {
  router.post('/auth/delegated-keys', createDelegatedKey);
  router.get('/auth/delegated-keys', listDelegatedKeys);
  router.get('/auth/delegated-keys/:id', (ctx) => json(200, delegatedKeyView(requireDelegatedKey(ctx))));
  router.delete('/auth/delegated-keys/:id', revokeDelegatedKey);
}
