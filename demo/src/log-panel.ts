/**
 * The request log: every HTTP leg the wallet makes (facade `onRequest`) and the app's own calls
 * through the proxy, newest at the top, plus a row for each payload the user signed.
 * Rows carry data attributes (leg, status, signed, method, path) for tests.
 */
import { byId, h, replace } from './dom.js';
import { decodePayload } from './payload.js';

export interface LegRow {
  method: string;
  path: string;
  status: number | undefined;
  ms: number;
  leg: number;
  signed: boolean;
  requestId?: string;
  error?: string;
  /** `wallet`: made by the library; `app`: the demo's own call through the proxy. */
  source: 'wallet' | 'app';
}

const MAX_ROWS = 200;

function time(): string {
  const d = new Date();
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function legLabel(row: LegRow): string {
  if (row.source === 'app') return 'app call';
  if (row.leg === 1) return row.signed ? 'stamped call' : 'first call';
  return row.leg === 2 ? 'signed retry' : `signed leg ${row.leg}`;
}

/** Ids travel percent-encoded (`InternalAccount%3A…`): shown with their colon. */
function readablePath(path: string): string {
  try {
    return path.split('/').map((seg) => decodeURIComponent(seg)).join('/');
  } catch {
    return path;
  }
}

function statusClass(status: number | undefined): string {
  if (status === undefined) return 'st-none';
  if (status === 202) return 'st-202';
  return status < 400 ? 'st-ok' : 'st-err';
}

export class RequestLog {
  private readonly list: HTMLOListElement;
  private readonly empty: HTMLElement;
  private readonly controls: HTMLElement;

  constructor(private readonly panel: HTMLElement = byId('log-panel')) {
    this.list = h('ol', { class: 'log-list', testid: 'log-list', 'aria-live': 'off' });
    this.empty = h('p', { class: 'muted small', testid: 'log-empty' }, 'No requests yet. Every leg of a signed call shows up here.');
    const clear = h('button', { type: 'button', class: 'link', testid: 'log-clear', onclick: () => this.clear() }, 'Clear');
    this.controls = h('div', { class: 'log-controls' }, clear);
    replace(this.panel, h('div', { class: 'log-head' }, h('h2', {}, 'Request log'), this.controls), this.empty, this.list);
  }

  addControl(el: HTMLElement): void {
    this.controls.prepend(el);
  }

  leg(row: LegRow): void {
    const status = row.status === undefined ? (row.error ?? 'no answer') : String(row.status);
    const path = readablePath(row.path);
    const li = h(
      'li',
      {
        class: `log-row ${statusClass(row.status)}`,
        testid: 'log-row',
        'data-kind': 'leg',
        'data-method': row.method,
        'data-path': path,
        'data-status': row.status ?? '',
        'data-leg': row.leg,
        'data-signed': row.signed ? 'true' : 'false',
        'data-source': row.source,
      },
      h(
        'div',
        { class: 'log-line' },
        h('span', { class: 'log-time' }, time()),
        h('span', { class: 'log-leg' }, legLabel(row)),
        row.signed ? h('span', { class: 'log-tag', title: 'carried the Service-Wallet-Signature stamp', 'aria-label': 'stamped' }, '✍') : null,
        h('span', { class: 'log-result' }, h('span', { class: 'log-status', testid: 'log-status' }, status), h('span', { class: 'log-ms' }, `${Math.round(row.ms)} ms`)),
      ),
      h('div', { class: 'log-req' }, h('b', {}, row.method), ' ', path),
    );
    this.add(li);
  }

  /** A payload the user approved (or declined). */
  signature(info: { purpose: string; method: string; path: string; payloadToSign: string }, approved: boolean): void {
    const decoded = decodePayload(info.payloadToSign);
    const path = readablePath(info.path);
    const li = h(
      'li',
      { class: `log-row log-sign ${approved ? 'st-sign' : 'st-err'}`, testid: 'log-row', 'data-kind': 'sign', 'data-path': path, 'data-approved': approved ? 'true' : 'false' },
      h('div', { class: 'log-line' }, h('span', { class: 'log-time' }, time()), h('span', { class: 'log-leg' }, approved ? '✍ signed' : '✗ declined'), h('span', { class: 'log-purpose' }, info.purpose)),
      h('details', { class: 'log-payload' }, h('summary', {}, `payloadToSign (${decoded.kind})`), h('pre', {}, decoded.text)),
    );
    this.add(li);
  }

  clear(): void {
    this.list.replaceChildren();
    this.empty.hidden = false;
  }

  private add(li: HTMLElement): void {
    this.empty.hidden = true;
    this.list.prepend(li);
    while (this.list.children.length > MAX_ROWS) this.list.lastElementChild?.remove();
  }
}
