/**
 * Version 0.1's storage layout, converted once: a chunk of its own, loaded only when such records are
 * found (load.ts).
 */
import type { MetadataStore } from '../keys/index.js';
import { isRecord } from '../types.js';
import { parseStoredSession } from './records.js';
import { ACCOUNT_PREFIX, type AccountState } from './state.js';
import type { Session } from './types.js';

/**
 * Converts the layout of version 0.1 (`session:<id>` and `current:<account>` records) into account
 * states, so that sessions survive the upgrade; the old records are deleted.
 */
export async function migrateOldLayout(meta: MetadataStore): Promise<void> {
  const entries = await meta.list();
  const old = entries.filter(([name]) => name.startsWith('session:') || name.startsWith('current:'));
  if (old.length === 0) return;
  const byAccount = new Map<string, { sessions: Session[]; current: string | null }>();
  for (const [name, value] of old) {
    if (!name.startsWith('session:')) continue;
    const s = parseStoredSession(value);
    if (!s) continue;
    const entry = byAccount.get(s.accountId) ?? { sessions: [], current: null };
    entry.sessions.push(s);
    byAccount.set(s.accountId, entry);
  }
  for (const [name, value] of old) {
    const entry = name.startsWith('current:') ? byAccount.get(name.slice('current:'.length)) : undefined;
    if (entry && isRecord(value) && typeof value.sessionId === 'string' && entry.sessions.some((s) => s.id === value.sessionId)) entry.current = value.sessionId;
  }
  for (const [accountId, entry] of byAccount) {
    if (entries.some(([name]) => name === ACCOUNT_PREFIX + accountId)) continue;
    const state: AccountState = { accountId, generation: 1, current: entry.current ?? entry.sessions[0]?.id ?? null, sessions: entry.sessions, change: 'login' };
    await meta.put(ACCOUNT_PREFIX + accountId, state);
  }
  for (const [name] of old) await meta.delete(name);
}
