/**
 * List responses (spec §2.1): `{ data, hasMore, nextCursor?, totalCount }` with cursor pagination.
 *
 * `paginate(items, query)` takes items already filtered and in answer order (e.g. newest first),
 * reads `limit` (default 20, 1–100, else `400 INVALID_INPUT`) and `cursor` (opaque: the base64url
 * of the last id of the previous page; an unknown cursor is `400 INVALID_INPUT`). A cursor stays
 * correct when new items are added at the front.
 */
import { invalidInput } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  data: unknown[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

export function parseLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return DEFAULT_PAGE_SIZE;
  if (!/^[0-9]{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE_SIZE) {
    throw invalidInput('limit must be an integer from 1 to 100', [{ field: 'limit', constraint: 'RANGE', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return Number(raw);
}

export function paginate<T extends { id: string }>(items: readonly T[], query: URLSearchParams, view: (item: T) => unknown): Page {
  const limit = parseLimit(query);
  const cursor = query.get('cursor');
  let start = 0;
  if (cursor !== null && cursor !== '') {
    const after = Buffer.from(cursor, 'base64url').toString('utf8');
    const index = items.findIndex((i) => i.id === after);
    if (index === -1) throw invalidInput('cursor is not valid for this list', [{ field: 'cursor', constraint: 'FORMAT', message: 'is not a cursor of this list' }]);
    start = index + 1;
  }
  const slice = items.slice(start, start + limit);
  const hasMore = start + limit < items.length;
  const last = slice[slice.length - 1];
  return {
    data: slice.map(view),
    hasMore,
    ...(hasMore && last !== undefined ? { nextCursor: Buffer.from(last.id, 'utf8').toString('base64url') } : {}),
    totalCount: items.length,
  };
}
