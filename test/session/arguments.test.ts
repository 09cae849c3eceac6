// What a session manager tells a developer who passes a bad argument (tab.ts, ending.ts; fast, no
// sandbox): INVALID_ARGUMENT, thrown at once, whose message names the argument and what it must be
// (`invalidArgument`: "<name> must be <expectation>"), so the mistake can be found without reading the
// library. fast-check draws `refreshWhenRemaining` values against the rule (a number strictly between
// 0 and 1) and bad `sessionIds`, `accountId`, `fn`. Also the two other messages a developer reads: a
// disposed manager, and a rarer-code chunk that could not be downloaded. Tabs are managers over
// tabs-fixture.ts's platform (real keys, a service double that answers at once).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { changesChunk, createSessionManager } from '../../src/session/manager.js';
import { createClient } from '../../src/transport/index.js';
import { ACCOUNT, platform } from './tabs-fixture.js';

const download = changesChunk.load;
afterEach(() => {
  changesChunk.load = download;
});

/** The error `fn` throws synchronously (undefined when it does not throw). */
function thrown(fn: () => unknown): { code?: string; message?: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error as { code?: string; message?: string };
  }
}

async function rejected(p: Promise<unknown>): Promise<{ code?: string; message?: string } | undefined> {
  return p.then(
    () => undefined,
    (error: unknown) => error as { code?: string; message?: string },
  );
}

const client = createClient({ baseUrl: 'http://127.0.0.1:9' });

describe('createSessionManager’s options', () => {
  it('options that are not an object: "options must be an object"', () => {
    for (const bad of [undefined, null, 'x', 3, true]) {
      expect(thrown(() => createSessionManager(bad as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'options must be an object' });
    }
  });

  it('refreshWhenRemaining is accepted iff it is a number strictly between 0 and 1, or left out (null: the default; drawn values of every type)', () => {
    const value = fc.oneof(
      fc.double({ noNaN: false }),
      fc.constantFrom(0, 1, -0, Number.MIN_VALUE, 1 - Number.EPSILON, 0.5, Number.NaN, Number.POSITIVE_INFINITY),
      fc.double({ min: 0, max: 1 }).map(String), // a number's text: compares as a number, still not one
      fc.constantFrom(null, true, false, [0.5], { valueOf: () => 0.5 }, 10n),
    );
    fc.assert(
      fc.property(value, (refreshWhenRemaining) => {
        const p = platform();
        const create = () => p.tab({ refreshWhenRemaining: refreshWhenRemaining as number });
        // null is left out (`??`): the default.
        const ok = refreshWhenRemaining === null || (typeof refreshWhenRemaining === 'number' && refreshWhenRemaining > 0 && refreshWhenRemaining < 1);
        const error = thrown(create);
        if (ok) expect(error).toBeUndefined();
        else expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'refreshWhenRemaining must be a number between 0 and 1' });
      }),
      { numRuns: 300 },
    );
    // Left out, it is 1/3 (manager-api.test.ts checks the refresh point it sets).
    expect(thrown(() => createSessionManager({ client, keyStore: platform().tab().keyStore }))).toBeUndefined();
  });
});

describe('ending.ts’s arguments', () => {
  it('forget: sessionIds must be an array of strings (drawn bad values)', async () => {
    const bad = fc.oneof(
      fc.constantFrom(undefined, null, 'Session:1', 3, {}, { length: 0 }),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { minLength: 1 }).filter((a) => !a.every((x) => typeof x === 'string')),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (sessionIds) => {
        const a = platform().tab();
        expect(await rejected(a.manager.forget(sessionIds as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'sessionIds must be an array of Session ids' });
      }),
      { numRuns: 60 },
    );
  });

  it('loginStarts / loggingIn: accountId must be a non-empty string, fn a function; thrown at the call, nothing run', async () => {
    const a = platform().tab();
    for (const accountId of ['', undefined, null, 3, {}]) {
      expect(thrown(() => a.manager.loginStarts(accountId as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'accountId must be a non-empty string' });
      expect(thrown(() => a.manager.loggingIn(accountId as never, async () => undefined as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'accountId must be a non-empty string' });
    }
    for (const fn of [undefined, null, 'fn', {}, 3]) {
      expect(thrown(() => a.manager.loggingIn(ACCOUNT, fn as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'fn must be a function' });
      const start = a.manager.loginStarts(ACCOUNT);
      expect(thrown(() => start(fn as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'fn must be a function' });
    }
  });
});

describe('the other messages a developer reads', () => {
  it('a disposed manager refuses every call: "this wallet was disposed"', async () => {
    const p = platform();
    const a = p.tab();
    await p.login(a);
    a.manager.dispose();
    for (const call of [() => a.manager.restore(), () => a.manager.resolve(ACCOUNT), () => a.manager.logout(ACCOUNT), () => a.manager.refresh(ACCOUNT)]) {
      expect(await rejected(call())).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'this wallet was disposed' });
    }
  });

  it('the rarer session code cannot be downloaded: NETWORK_ERROR "could not load the session code", the download’s error as its cause', async () => {
    const p = platform();
    const a = p.tab();
    await a.manager.restore();
    const cause = new TypeError('Failed to fetch dynamically imported module');
    changesChunk.load = () => Promise.reject(cause);
    const error = await rejected(p.login(a));
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', message: 'could not load the session code', cause });
  });
});
