/**
 * The demo stack's test-only switches: what an end-to-end journey needs the servers to do that no
 * browser engine's driver can do in every engine and both modes (WebKitWebDriver intercepts no
 * request; a page cannot stop its own module loads). Declared here, served only when the stack was
 * started with `testSwitches: true` (the e2e global setup; `npm start` never): otherwise the route
 * is the demo API's, which refuses it like any route it does not declare.
 *
 * `POST /demo/test/commit-code {"unloadable": boolean}`: while true, the code a login's commit
 * needs (src/session/changes.ts, loaded on first use) cannot be downloaded — in-origin the dev
 * server's module is answered with a destroyed connection (a network error, as the request aborted
 * in Chromium's journey did), in frame mode the signer bundle's chunk (`chunks/changes-<hash>.js`)
 * is moved out of the served files (404) and back. `GET` of the route answers `{unloadable,
 * refused}`: how many downloads of it were refused so far (in frame mode, moved away: unknown, -1).
 */
import { readdirSync, renameSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';

export const COMMIT_CODE_ROUTE = '/demo/test/commit-code';

/** The end of the dev server's path of the session changes module (`/@fs/<repo>/src/…`: outside the demo's root). */
const DEV_MODULE = '/src/session/changes.ts';
const CHUNK = /^changes-[\w-]+\.js$/;
const MOVED = '.unloadable';

export interface TestSwitches {
  /** Answers the switches' route. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Whether the app server must refuse this request (a destroyed connection); counts it. */
  refuses(path: string): boolean;
}

/** The switches over the app server and, in frame mode, the built signer page in `signerDir`. */
export function createTestSwitches(signerDir: string | undefined): TestSwitches {
  let unloadable = false;
  let refused = 0;
  const chunks = signerDir === undefined ? undefined : join(signerDir, 'chunks');
  const moveChunk = (away: boolean): void => {
    if (chunks === undefined) return;
    for (const name of readdirSync(chunks)) {
      if (away && CHUNK.test(name)) renameSync(join(chunks, name), join(chunks, name + MOVED));
      if (!away && name.endsWith(MOVED)) renameSync(join(chunks, name), join(chunks, name.slice(0, -MOVED.length)));
    }
  };
  const answer = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
  };
  return {
    handle(req, res) {
      if (req.method === 'GET') return answer(res, 200, { unloadable, refused: chunks === undefined ? refused : -1 });
      if (req.method !== 'POST') return answer(res, 405, { code: 'METHOD_NOT_ALLOWED' });
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        if (body.length < 1024) body += chunk;
      });
      req.on('end', () => {
        let wanted: unknown;
        try {
          wanted = (JSON.parse(body) as { unloadable?: unknown }).unloadable;
        } catch {
          wanted = undefined;
        }
        if (typeof wanted !== 'boolean') return answer(res, 400, { code: 'INVALID_INPUT', reason: 'body: {"unloadable": boolean}' });
        if (wanted !== unloadable) moveChunk(wanted);
        unloadable = wanted;
        refused = 0;
        answer(res, 200, { unloadable });
      });
    },
    refuses(path) {
      if (!unloadable || chunks !== undefined || !path.endsWith(DEV_MODULE)) return false;
      refused += 1;
      return true;
    },
  };
}
