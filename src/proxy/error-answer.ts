/**
 * S9 of scope.ts: what of a 4xx answer's ids reaches the user (those that are not theirs are removed
 * from `details` and masked in `reason`/`message`).
 */
import type { CurrentUser, Ownership } from './ownership.js';
import type { IdKind, Ids } from './routes.js';

/** A value shaped like a service id (`<Type>:<…>`, wire reference §1). */
const ID_TOKEN = /\b[A-Z][A-Za-z0-9]*:[A-Za-z0-9][A-Za-z0-9._~-]*/g;
/** The id kind an id's type prefix or a `details` field name stands for, to look it up (S9). */
const PREFIX_KINDS: Readonly<Record<string, IdKind>> = {
  Customer: 'customerId',
  InternalAccount: 'accountId',
  Card: 'cardId',
  Quote: 'quoteId',
  DelegatedKey: 'delegatedKeyId',
  Transaction: 'transactionId',
  AuthMethod: 'credentialId',
  Session: 'sessionId',
};
const FIELD_KINDS: Readonly<Record<string, IdKind>> = {
  customerId: 'customerId',
  accountId: 'accountId',
  internalAccountId: 'accountId',
  fundingSource: 'fundingSourceId',
  fundingSourceId: 'fundingSourceId',
  cardId: 'cardId',
  quoteId: 'quoteId',
  delegatedKeyId: 'delegatedKeyId',
  transactionId: 'transactionId',
  credentialId: 'credentialId',
  sessionId: 'sessionId',
};
const isIdField = (name: string): boolean => /(^id|Id|Ids)$/.test(name) || name in FIELD_KINDS;

/**
 * S9: a 4xx answer with every id that is not the user's removed from `details` (and masked in
 * `reason`/`message`). Returns the payload unchanged when nothing was removed, else the rewritten
 * payload and `redacted: true` (the caller logs `DETAILS_WITHHELD`).
 */
export async function checkErrorAnswer(
  status: number,
  payload: Uint8Array<ArrayBuffer>,
  user: CurrentUser,
  named: Ids,
  ownership: Ownership,
): Promise<{ payload: Uint8Array<ArrayBuffer>; redacted: boolean }> {
  if (status < 400 || status > 499 || payload.byteLength === 0) return { payload, redacted: false };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return { payload, redacted: false };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { payload, redacted: false };
  const known = new Set<string>([user.customerId, ...(user.accountIds ?? []), ...Object.values(named).filter((v): v is string => typeof v === 'string')]);
  const verdicts = new Map<string, boolean>();
  const theirs = async (id: string, field: string | undefined): Promise<boolean> => {
    if (known.has(id)) return true;
    const cached = verdicts.get(id);
    if (cached !== undefined) return cached;
    const prefix = /^([A-Z][A-Za-z0-9]*):/.exec(id)?.[1];
    const kind = (prefix === undefined ? undefined : PREFIX_KINDS[prefix]) ?? (field === undefined ? undefined : FIELD_KINDS[field]);
    let mine = false;
    if (kind !== undefined) {
      try {
        await ownership.checkIds(user, { [kind]: id });
        mine = true;
      } catch {
        mine = false;
      }
    }
    verdicts.set(id, mine);
    return mine;
  };
  let redacted = false;
  const scrub = async (node: unknown, field: string | undefined): Promise<unknown> => {
    if (typeof node === 'string') {
      const ids = node.match(ID_TOKEN) ?? [];
      const idShaped = ids.length > 0 || (field !== undefined && isIdField(field));
      if (!idShaped) return node;
      if (ids.length === 0) return (await theirs(node, field)) ? node : undefined;
      for (const id of ids) if (!(await theirs(id, field))) return undefined;
      return node;
    }
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      for (const item of node) {
        const kept = await scrub(item, field);
        if (kept === undefined) redacted = true;
        else out.push(kept);
      }
      return out;
    }
    if (typeof node === 'object' && node !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        const kept = await scrub(item, key);
        if (kept === undefined) redacted = true;
        else out[key] = kept;
      }
      return out;
    }
    return node;
  };
  const answer = { ...(value as Record<string, unknown>) };
  if ('details' in answer) answer.details = await scrub(answer.details, undefined);
  for (const key of ['reason', 'message'] as const) {
    const text = answer[key];
    if (typeof text !== 'string') continue;
    let masked = text;
    for (const id of new Set(text.match(ID_TOKEN) ?? [])) {
      if (!(await theirs(id, undefined))) {
        masked = masked.split(id).join('(withheld)');
        redacted = true;
      }
    }
    answer[key] = masked;
  }
  return redacted ? { payload: new TextEncoder().encode(JSON.stringify(answer)), redacted } : { payload, redacted };
}
