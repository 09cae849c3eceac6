/**
 * Delegated signing keys of card funding sources (wire reference §8.4, spec §5.4): create (three
 * signed legs, the same body on each), list, get, revoke. The delegated private key stays with the
 * service; only its public half is ever returned.
 */
import { WalletError, invalidArgument } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord, type DelegatedKey } from '../types.js';
import { ACCOUNT_ID, expectRecord, optionalString, requireString, seg } from './args.js';
import { signedIfAsked, signedNow } from './signing.js';

/** What `wallet.createDelegatedKey` creates a key for. */
export interface CreateDelegatedKeyArgs {
  /** The card (`Card:…`) whose funding source gets the key. */
  cardId: string;
  /** The embedded wallet that funds the card; its session signs. */
  internalAccountId: string;
  /** A name for the key. */
  nickname: string;
}

/** Which delegated keys to list: by wallet, by funding source, or both (they combine). */
export interface DelegatedKeyFilter {
  /** Keys that this embedded wallet authorized. */
  accountId?: string;
  /** Keys of this card funding source. */
  fundingSourceId?: string;
}

/** How many pages are followed before giving up (a loop guard). */
const MAX_PAGES = 100;

/**
 * `POST /auth/delegated-keys`: leg 1 → 202, leg 2 (signed) → a second 202, leg 3 (signed with the
 * same session key) → 201 ACTIVE. Exactly three requests. One ACTIVE key per card funding source:
 * a second one → `409 CONFLICT` (the local sandbox adds details.cause `DELEGATED_KEY_ALREADY_ACTIVE`, details.delegatedKeyId).
 */
export async function createDelegatedKey(ctx: WalletContext, args: CreateDelegatedKeyArgs): Promise<DelegatedKey> {
  if (!isRecord(args)) throw invalidArgument('args', 'an object { cardId, internalAccountId, nickname }');
  const body = {
    cardId: requireString(args.cardId, 'args.cardId', 'a Card id'),
    internalAccountId: requireString(args.internalAccountId, 'args.internalAccountId', ACCOUNT_ID),
    nickname: requireString(args.nickname, 'args.nickname'),
  };
  const { answer } = await signedNow<unknown>(ctx, { accountId: body.internalAccountId }, {
    method: 'POST',
    path: '/auth/delegated-keys',
    body,
    purpose: 'create-delegated-key',
    challenges: 2,
  });
  return expectRecord<DelegatedKey>(answer, 'a DelegatedKey');
}

/**
 * `GET /auth/delegated-keys?accountId=&fundingSourceId=` (at least one), PENDING and REVOKED keys
 * included. Decision: the answer is a list of spec §2.1 (`hasMore`, `nextCursor`); every page is
 * fetched (the next with `cursor=<nextCursor>`; one request for up to a page of keys, 20 in the
 * sandbox) and the keys are returned as one array, newest first as the service orders them.
 */
export async function listDelegatedKeys(ctx: WalletContext, filter: DelegatedKeyFilter): Promise<DelegatedKey[]> {
  if (!isRecord(filter)) throw invalidArgument('filter', 'an object { accountId } or { fundingSourceId }');
  const accountId = optionalString(filter.accountId, 'filter.accountId', ACCOUNT_ID);
  const fundingSourceId = optionalString(filter.fundingSourceId, 'filter.fundingSourceId', 'a funding source id');
  if (accountId === undefined && fundingSourceId === undefined) throw invalidArgument('filter', 'an object with accountId or fundingSourceId');
  const keys: DelegatedKey[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await ctx.client.request<unknown>({
      method: 'GET',
      path: '/auth/delegated-keys',
      query: { accountId, fundingSourceId, cursor },
    });
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw new WalletError('BAD_RESPONSE', 'expected {data: DelegatedKey[]}');
    for (const item of answer.data) keys.push(expectRecord<DelegatedKey>(item, 'a DelegatedKey'));
    const next = answer.nextCursor;
    if (answer.hasMore !== true || typeof next !== 'string' || next === '' || next === cursor) return keys;
    cursor = next;
  }
  throw new WalletError('BAD_RESPONSE', `the delegated-key list did not end after ${MAX_PAGES} pages`);
}

/** `GET /auth/delegated-keys/{id}`; `404 NOT_FOUND` when unknown. */
export async function getDelegatedKey(ctx: WalletContext, id: string): Promise<DelegatedKey> {
  const keyId = requireString(id, 'id', 'a DelegatedKey id');
  return expectRecord<DelegatedKey>(await ctx.client.request<unknown>({ method: 'GET', path: `/auth/delegated-keys/${seg(keyId)}` }), 'a DelegatedKey');
}

/**
 * `DELETE /auth/delegated-keys/{id}` → the key, REVOKED. One request. Decision: the wire reference
 * lists revocation without a signature (the sandbox needs none); should the service answer with a
 * challenge, it is signed with the current session of `accountId` (default: the account used
 * last). An answer without the record (204) is followed by a GET so the caller always gets the key.
 */
export async function revokeDelegatedKey(ctx: WalletContext, id: string, accountId?: string): Promise<DelegatedKey> {
  const keyId = requireString(id, 'id', 'a DelegatedKey id');
  const account = optionalString(accountId, 'accountId', ACCOUNT_ID);
  const answer = await signedIfAsked<unknown>(ctx, account, { method: 'DELETE', path: `/auth/delegated-keys/${seg(keyId)}`, purpose: 'revoke-delegated-key' });
  return answer === undefined ? getDelegatedKey(ctx, keyId) : expectRecord<DelegatedKey>(answer, 'a DelegatedKey');
}
