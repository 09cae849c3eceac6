/**
 * The first look at storage: migrate the old layout (loaded only when found), adopt every stored account state (silently:
 * nothing changed), then, in each account's section, drop what expired or lost its key (with their
 * events), and make the keys of sessions that no state and no pending end names pending ends (I8).
 */
import { readAll, readEnding, type Ending, type Snapshot } from './state.js';
import { addEnding, expireSessions, removeSessions, type OpsContext } from './operations.js';

const ORPHAN_AGE_MS = 2 * 60 * 1000;
/** An orphan's session expires within this of its key's creation (the service's 15 minutes, with room). */
const LIFETIME_BOUND_MS = 60 * 60 * 1000;

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
  // A key no state and no pending end names: a login or refresh interrupted between writing its key
  // and its state (the age guard spares another tab in the middle of a commit). Its session may be
  // live on the service: it becomes a pending end (I8), ended below with the others. A pending end's
  // key is kept until its end is done.
  const held = new Set(view.accounts().flatMap((s) => s.sessions.map((x) => x.publicKeyHex)));
  for (const accountId of ending) for (const e of await readEnding(keyStore.meta, accountId)) held.add(e.publicKeyHex);
  const cutoff = Date.now() - ORPHAN_AGE_MS;
  const orphans = new Map<string, Ending[]>();
  for (const k of await keyStore.list({ purpose: 'session' }).catch(() => [])) {
    if (k.sessionId === undefined || held.has(k.publicKeyHex) || k.createdAt >= cutoff) continue;
    if (k.accountId === undefined) await keyStore.delete(k.publicKeyHex).catch(() => undefined);
    else orphans.set(k.accountId, [...(orphans.get(k.accountId) ?? []), { id: k.sessionId, publicKeyHex: k.publicKeyHex, expiresAt: new Date(k.createdAt + LIFETIME_BOUND_MS).toISOString() }]);
  }
  for (const [accountId, list] of orphans) {
    // Checked again in the section: a state committed since the first read names its keys.
    await run(accountId, async (snap) => {
      const named = new Set(snap.state.sessions.map((s) => s.publicKeyHex));
      await addEnding(ctx, accountId, list.filter((e) => !named.has(e.publicKeyHex)));
    }).catch(() => undefined);
  }
  return { lastAccountId, ending: [...new Set([...ending, ...orphans.keys()])] };
}
