/**
 * The first look at storage: migrate the old layout (loaded only when found), adopt every stored account state (silently:
 * nothing changed), then, in each account's section, drop what expired or lost its key (with their
 * events), and name the accounts with keys of sessions that no state and no pending end holds (I8).
 */
import { readAll, readEnding, type Snapshot } from './state.js';
import { expireSessions, removeSessions, type OpsContext } from './operations.js';

const ORPHAN_AGE_MS = 2 * 60 * 1000;

/** Loads the stored states into the picture; resolves to the last account used. */
export async function loadStored(ctx: OpsContext, run: <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>) => Promise<T>): Promise<{ lastAccountId: string | undefined; ending: string[]; orphaned: string[] }> {
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
  // A key no state and no pending end names: a login or refresh interrupted between writing its key
  // and its state. Its session may be live on the service: its account is named for `endOrphans`
  // (operations.ts), which the manager runs holding the locks that no such commit can be under way
  // without. One naming no account cannot be ended: deleted, past an age that spares a commit under way.
  const held = new Set(view.accounts().flatMap((s) => s.sessions.map((x) => x.publicKeyHex)));
  for (const accountId of ending) for (const e of await readEnding(keyStore.meta, accountId)) held.add(e.publicKeyHex);
  const cutoff = Date.now() - ORPHAN_AGE_MS;
  const orphaned = new Set<string>();
  for (const k of await keyStore.list({ purpose: 'session' }).catch(() => [])) {
    if (k.sessionId === undefined || held.has(k.publicKeyHex)) continue;
    if (k.accountId !== undefined) orphaned.add(k.accountId);
    else if (k.createdAt < cutoff) await keyStore.delete(k.publicKeyHex).catch(() => undefined);
  }
  return { lastAccountId, ending, orphaned: [...orphaned] };
}
