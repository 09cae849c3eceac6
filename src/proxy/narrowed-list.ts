/** Lists for a user narrowed by `accountIds`, paged by the proxy (invariant S8 of scope.ts). */
import { DETAILS_WITHHELD, refuse, type Outcome } from './outcome.js';
import { ProxyRefusal } from './responses.js';
import type { CompiledRule } from './routes.js';

const NARROWED_PAGE = 100;
const NARROWED_MAX_PAGES = 10;
const NARROWED_DEFAULT_LIMIT = 20;

/**
 * S8: a list for a user narrowed by `accountIds`. Decision: the service has no filter that pages
 * only the narrowed accounts' records (spec §4.3, §4.4), and its cursor, `hasMore` and
 * `totalCount` describe records the user must not learn of (the sandbox's cursor is the last id of
 * the page). So the proxy reads the whole list itself (bounded: more than NARROWED_MAX_PAGES pages
 * is withheld, never silently cut), keeps the user's records (checkAnswer, in forward) and pages
 * them with its own offset cursor `n<offset>`, which says nothing about anyone else's records.
 * Nothing the service said about paging reaches the user.
 */
export async function narrowedList(
  path: string,
  asked: URLSearchParams,
  rule: CompiledRule,
  /** Forwards one page (`GET` of the list with this query) as the user, its records checked (S4). */
  page: (query: URLSearchParams) => Promise<Outcome>,
): Promise<Outcome> {
  const cursor = asked.get('cursor');
  const offset = cursor === null ? 0 : /^n(0|[1-9][0-9]{0,8})$/.exec(cursor)?.[1];
  if (offset === undefined) return refuse(new ProxyRefusal('INVALID_INPUT', 'The cursor was not issued by this proxy for this list.'), path);
  const limitText = asked.get('limit');
  const limit = limitText === null ? NARROWED_DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > NARROWED_PAGE || (limitText !== null && !/^[0-9]+$/.test(limitText))) {
    return refuse(new ProxyRefusal('INVALID_INPUT', `The limit must be an integer from 1 to ${NARROWED_PAGE}.`), path);
  }
  const query = new URLSearchParams(asked);
  query.delete('cursor');
  query.delete('limit');
  if (rule.query.has('limit')) query.set('limit', String(NARROWED_PAGE));
  const kept: unknown[] = [];
  let last: { outcome: Outcome; body: Record<string, unknown> } | undefined;
  let counted = false;
  for (let read = 0; ; read++) {
    if (read === NARROWED_MAX_PAGES) {
      return refuse(new ProxyRefusal('ANSWER_WITHHELD', `The list has more than ${NARROWED_MAX_PAGES * NARROWED_PAGE} records; it cannot be narrowed to the user's accounts.`, 'narrowed list too long'), path);
    }
    const outcome = await page(query);
    if ((outcome.code !== undefined && outcome.code !== DETAILS_WITHHELD) || outcome.response.status !== 200) return outcome;
    let body: unknown;
    try {
      body = await outcome.response.json();
    } catch {
      return refuse(new ProxyRefusal('ANSWER_WITHHELD', 'The service answer is not JSON; it was withheld.'), path);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray((body as { data?: unknown }).data)) {
      return refuse(new ProxyRefusal('ANSWER_WITHHELD', 'The service answer is not a list; it was withheld.'), path);
    }
    const list = body as Record<string, unknown> & { data: unknown[] };
    kept.push(...list.data);
    counted ||= typeof list.totalCount === 'number';
    last = { outcome, body: list };
    if (list.hasMore !== true) break;
    const next = list.nextCursor;
    if (typeof next !== 'string' || next === '' || !rule.query.has('cursor')) {
      return refuse(new ProxyRefusal('ANSWER_WITHHELD', 'The service list has more pages than the proxy can read; it was withheld.', 'narrowed list not pageable'), path);
    }
    query.set('cursor', next);
  }
  const start = Number(offset);
  const end = start + limit;
  const { data: _data, nextCursor: _next, hasMore: _more, totalCount: _total, ...rest } = last.body;
  const more = end < kept.length;
  const answer = { ...rest, data: kept.slice(start, end), hasMore: more, ...(more ? { nextCursor: `n${end}` } : {}), ...(counted ? { totalCount: kept.length } : {}) };
  const response = new Response(JSON.stringify(answer), { status: 200, headers: last.outcome.response.headers });
  return { response, path };
}
