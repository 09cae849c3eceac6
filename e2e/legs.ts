/**
 * The wallet's HTTP legs, checked the same way in both modes. In-origin, the demo's request log
 * shows them (the wallet's `onRequest`: rows with data-leg, data-status, data-signed). In frame mode
 * the wallet's calls are the signer frame's own (THREAT-MODEL P1: the frame sends both legs of a
 * signed action), and the app's page is told nothing of them: the test reads them off the network,
 * every request the frame makes to the proxy (`/api/…`), numbered as the wallet numbers them (an
 * unsigned call is leg 1; a signed one after the 202 of the same call is the next leg, after another
 * answer to a signed leg it is that leg again, else it is a stamped call, leg 1).
 */
import { expect, type BrowserContext, type Page } from '@playwright/test';

export interface Leg {
  leg: number;
  status: number;
  signed: boolean;
}

export interface Row extends Leg {
  method: string;
  path: string;
}

const framePages = new WeakMap<Page, Row[]>();

/** Frame mode: records, for each page of the context, the legs its signer frame sends to the proxy. */
export function recordFrameLegs(context: BrowserContext): void {
  context.on('page', (page) => {
    const rows: Row[] = [];
    framePages.set(page, rows);
    page.on('response', (response) => {
      const request = response.request();
      const path = new URL(request.url()).pathname;
      if (!path.startsWith('/api/') || request.method() === 'OPTIONS' || request.frame() === page.mainFrame()) return;
      const method = request.method();
      const signed = request.headers()['service-wallet-signature'] !== undefined;
      rows.push(numbered(rows, { method, path, status: response.status(), signed }));
    });
  });
}

/**
 * A request of the wallet as the wallet numbers its legs, after the `rows` before it. Signed after
 * a 202 of the same call: the next leg; signed after anything else of a signed leg (429, a
 * PROCESSING answer): that leg sent again; unsigned, or signed with nothing before: leg 1.
 */
export function numbered<R extends Omit<Row, 'leg'>>(rows: readonly Row[], request: R): R & { leg: number } {
  const previous = rows.filter((r) => r.method === request.method && r.path === request.path).at(-1);
  const leg = !request.signed || previous === undefined ? 1 : previous.status === 202 ? previous.leg + 1 : previous.signed ? previous.leg : 1;
  return { ...request, leg };
}

/** The legs the log panel shows for `method` and `path`, as a row selector. */
function selector(want: Partial<Leg>): string {
  return Object.entries(want)
    .map(([k, v]) => `[data-${k}="${String(v)}"]`)
    .join('');
}

/**
 * How many legs of the wallet for `method` and `path` (a regular expression over the path) with
 * what `want` says (leg number, status, signed) there are now: in the demo's log (in-origin) or on
 * the signer frame's network (frame mode).
 */
export async function countLegs(page: Page, method: string, path: RegExp, want: Partial<Leg>): Promise<number> {
  const rows = framePages.get(page);
  if (rows === undefined) return logRows(page, method, path, want).count();
  return rows.filter((r) => r.method === method && path.test(r.path) && (Object.keys(want) as (keyof Leg)[]).every((k) => r[k] === want[k])).length;
}

function logRows(page: Page, method: string, path: RegExp, want: Partial<Leg>) {
  return page
    .getByTestId('log-row')
    .and(page.locator(`[data-kind="leg"][data-method="${method}"]${selector(want)}`))
    .filter({ has: page.locator('.log-req', { hasText: path }) });
}

/**
 * Expects `count` legs of the wallet for `method` and `path` (a regular expression over the path)
 * with what `want` says (leg number, status, signed), in the demo's log (in-origin) or on the signer
 * frame's network (frame mode).
 */
export async function expectLegs(page: Page, method: string, path: RegExp, want: Partial<Leg>, count: number): Promise<void> {
  if (!framePages.has(page)) {
    await expect(logRows(page, method, path, want)).toHaveCount(count);
    return;
  }
  await expect.poll(() => countLegs(page, method, path, want), { message: `${method} ${path} legs ${JSON.stringify(want)} sent by the signer frame` }).toBe(count);
}
