/**
 * Transactions (spec §2.4, §3.3, §4.4). Records come from sandbox funding (`INCOMING`, no source)
 * and quote execution (domain/transfers.ts); executed transfers settle before every read.
 *
 * - `GET /transactions` → the list shape of spec §2.1, newest first, cursor pagination
 *   (list.ts: `limit` 1–100, default 20; `cursor` = `nextCursor` of the previous page). Filters
 *   combine: `customerId`, `platformCustomerId`, `status` (`PENDING|PROCESSING|COMPLETED|FAILED`),
 *   `type` (`INCOMING|OUTGOING`), `senderAccountIdentifier` (the sending internal account:
 *   `source.accountId`, so sandbox funding never matches), `startDate` / `endDate` (ISO 8601 with a
 *   time zone, both inclusive, on `createdAt`). Every bad parameter is listed in
 *   `details.errors[]` (`400 INVALID_INPUT`); `startDate` after `endDate` is one of them.
 *   Unknown customer or account ids in filters give an empty page (transactions outlive deleted
 *   customers). Other query parameters are ignored.
 * - `GET /transactions/{id}` → `200 Transaction`, `404 TRANSACTION_NOT_FOUND`.
 */
import { json, type RequestContext } from '../context.js';
import { settleTransfers } from '../domain/transfers.js';
import { invalidInput, notFound, type FieldError } from '../errors.js';
import { MAX_PAGE_SIZE, paginate } from '../list.js';
import type { Router } from '../router.js';
import type { TransactionRecord, TransactionStatus } from '../store.js';
import { transactionView } from '../views.js';

const STATUSES: readonly TransactionStatus[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];
const TYPES: readonly TransactionRecord['type'][] = ['INCOMING', 'OUTGOING'];
/** ISO 8601 date-time, seconds and fraction optional, with a zone (`Z` or `±hh:mm`). */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const MAX_PARAM = 500;

/** Epoch ms of a strict ISO 8601 timestamp, or NaN (also for impossible dates like Feb 30). */
function parseTimestamp(value: string): number {
  if (!ISO_TIMESTAMP.test(value)) return Number.NaN;
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) return Number.NaN;
  return Date.parse(value);
}

interface Filters {
  customerId?: string;
  platformCustomerId?: string;
  status?: string;
  type?: string;
  senderAccountIdentifier?: string;
  start?: number;
  end?: number;
}

function parseFilters(query: URLSearchParams): Filters {
  const errors: FieldError[] = [];
  const out: Filters = {};
  for (const name of ['customerId', 'platformCustomerId', 'senderAccountIdentifier'] as const) {
    const value = query.get(name);
    if (value === null) continue;
    if (value.length === 0 || value.length > MAX_PARAM) errors.push({ field: name, constraint: 'LENGTH', message: `must be 1–${MAX_PARAM} characters long` });
    else out[name] = value;
  }
  const status = query.get('status');
  if (status !== null) {
    if ((STATUSES as readonly string[]).includes(status)) out.status = status;
    else errors.push({ field: 'status', constraint: 'ENUM', message: `must be one of ${STATUSES.join(', ')}` });
  }
  const type = query.get('type');
  if (type !== null) {
    if ((TYPES as readonly string[]).includes(type)) out.type = type;
    else errors.push({ field: 'type', constraint: 'ENUM', message: `must be one of ${TYPES.join(', ')}` });
  }
  for (const [name, key] of [['startDate', 'start'], ['endDate', 'end']] as const) {
    const value = query.get(name);
    if (value === null) continue;
    const ms = parseTimestamp(value);
    if (Number.isNaN(ms)) errors.push({ field: name, constraint: 'FORMAT', message: 'must be an ISO 8601 timestamp with a time zone, e.g. 2025-10-13T00:00:00Z' });
    else out[key] = ms;
  }
  if (out.start !== undefined && out.end !== undefined && out.start > out.end) {
    errors.push({ field: 'startDate', constraint: 'RANGE', message: 'must not be after endDate' });
  }
  const limit = query.get('limit');
  if (limit !== null && (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE_SIZE)) {
    errors.push({ field: 'limit', constraint: 'RANGE', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  }
  if (errors.length > 0) throw invalidInput('The query has invalid parameters', errors);
  return out;
}

function matches(t: TransactionRecord, f: Filters): boolean {
  return (
    (f.customerId === undefined || t.customerId === f.customerId) &&
    (f.platformCustomerId === undefined || t.platformCustomerId === f.platformCustomerId) &&
    (f.status === undefined || t.status === f.status) &&
    (f.type === undefined || t.type === f.type) &&
    (f.senderAccountIdentifier === undefined || t.source?.accountId === f.senderAccountIdentifier) &&
    (f.start === undefined || t.createdAt >= f.start) &&
    (f.end === undefined || t.createdAt <= f.end)
  );
}

function listTransactions(ctx: RequestContext) {
  const filters = parseFilters(ctx.query);
  settleTransfers(ctx.state);
  // The map keeps creation order and the clock never goes back: reversed, it is newest first.
  const items = [...ctx.state.store.transactions.values()].filter((t) => matches(t, filters)).reverse();
  return json(200, paginate(items, ctx.query, transactionView));
}

function getTransaction(ctx: RequestContext) {
  settleTransfers(ctx.state);
  const id = ctx.param('transactionId');
  const tx = ctx.state.store.transactions.get(id);
  if (tx === undefined) throw notFound('TRANSACTION_NOT_FOUND', `Transaction ${id} was not found`);
  return json(200, transactionView(tx));
}

export function registerTransactionRoutes(router: Router): void {
  router.get('/transactions', listTransactions);
  router.get('/transactions/:transactionId', getTransaction);
}
