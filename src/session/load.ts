/**
 * The first look at storage: migrate the old layout (loaded only when found), adopt every stored account state (silently:
 * nothing changed), then, in each account's section, drop what expired or lost its key (with their
 * events), and delete keys that no state names.
 */
import { readAll, type Snapshot } from './state.js';
import { expireSessions, removeSessions, type OpsContext } from './operations.js';

const ORPHAN_AGE_MS = 2 * 60 * 1000;

/** Loads the stored states into the picture; resolves to the last account used. */
export async function loadStored(ctx: OpsContext, run: <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>) => Promise<T>): Promise<{ lastAccountId: string | undefined; ending: string[] }> {
  const { keyStore, view } = ctx;
  let stored = await readAll(keyStore.meta);
  if (stored.oldLayout) {
    // Version 0.1's records: the converter is a chunk of its own, downloaded only here (once per
    // browser that still has them). Should it fail to load or to convert, the next load tries again.
    await import('./migrate.js').then((m) => m.migrateOldLayout(keyStore.meta)).catch(() => undefined);
    stored = await readAll(keyStore.meta);
  }
  const { states, lastAccountId, ending } = stored;
  for (const state of states) view.apply(state, { silent: true });
  for (const { accountId } of states) {
    await run(accountId, (snap) => expireSessions(ctx, snap));
    await run(accountId, async (snap) => {
      const missing = [];
      for (const s of snap.state.sessions) if ((await keyStore.get(s.publicKeyHex)) === undefined) missing.push(s.id);
      await removeSessions(ctx, snap, new Set(missing), 'evicted');
    });
  }
  // A key no state names: a login or refresh interrupted between writing its key and its state
  // (the age guard spares another tab in the middle of a commit).
  const held = new Set(view.accounts().flatMap((s) => s.sessions.map((x) => x.publicKeyHex)));
  const cutoff = Date.now() - ORPHAN_AGE_MS;
  for (const k of await keyStore.list({ purpose: 'session' }).catch(() => [])) {
    if (k.sessionId !== undefined && !held.has(k.publicKeyHex) && k.createdAt < cutoff) await keyStore.delete(k.publicKeyHex).catch(() => undefined);
  }
  return { lastAccountId, ending };
}
