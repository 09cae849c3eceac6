// A small, correct `navigator.locks` for node tests (not a test file): the Web Locks API's
// request(name, [options,] callback) with modes exclusive/shared, ifAvailable and signal, granted
// as the spec says (a request is grantable when no held lock conflicts with it and no earlier queued
// request of the name is ahead of it: an exclusive one only first in the queue, a shared one when
// every request ahead of it is shared), and query() for what is held and pending.

type Mode = 'exclusive' | 'shared';
interface Waiter { name: string; mode: Mode; clientId: string; grant: () => void; seq: number }
interface Held { name: string; mode: Mode; clientId: string; seq: number }

export interface LockRequestOptions { mode?: Mode; ifAvailable?: boolean; signal?: AbortSignal }

export class FakeWebLocks {
  private readonly held: Held[] = [];
  private readonly queue: Waiter[] = [];
  private seq = 0;
  /** Every request in the order it reached this manager: name and mode. */
  readonly requests: Array<{ name: string; mode: Mode }> = [];

  constructor(readonly clientId = 'client') {}

  request<T>(name: string, optionsOrCallback: LockRequestOptions | ((lock: { name: string; mode: Mode } | null) => T | Promise<T>), maybeCallback?: (lock: { name: string; mode: Mode } | null) => T | Promise<T>): Promise<T> {
    const options: LockRequestOptions = typeof optionsOrCallback === 'function' ? {} : optionsOrCallback;
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback)!;
    const mode: Mode = options.mode ?? 'exclusive';
    this.requests.push({ name, mode });
    return new Promise<T>((resolve, reject) => {
      if (options.signal?.aborted) return reject(options.signal.reason ?? new DOMException('aborted', 'AbortError'));
      const seq = ++this.seq;
      const run = (): void => {
        const lock: Held = { name, mode, clientId: this.clientId, seq };
        this.held.push(lock);
        Promise.resolve()
          .then(() => callback({ name, mode }))
          .then(
            (v) => (this.release(lock), resolve(v)),
            (e: unknown) => (this.release(lock), reject(e)),
          );
      };
      const waiter: Waiter = { name, mode, clientId: this.clientId, grant: run, seq };
      if (options.ifAvailable && !this.grantable(waiter, true)) {
        Promise.resolve()
          .then(() => callback(null))
          .then(resolve, reject);
        return;
      }
      this.queue.push(waiter);
      options.signal?.addEventListener('abort', () => {
        const i = this.queue.indexOf(waiter);
        if (i < 0) return;
        this.queue.splice(i, 1);
        reject(options.signal!.reason ?? new DOMException('aborted', 'AbortError'));
        this.pump();
      });
      this.pump();
    });
  }

  query(): { held: Array<{ name: string; mode: Mode; clientId: string }>; pending: Array<{ name: string; mode: Mode; clientId: string }> } {
    const strip = (x: { name: string; mode: Mode; clientId: string }) => ({ name: x.name, mode: x.mode, clientId: x.clientId });
    return { held: this.held.map(strip), pending: this.queue.map(strip) };
  }

  private conflicts(a: Mode, b: Mode): boolean {
    return a === 'exclusive' || b === 'exclusive';
  }

  private grantable(w: Waiter, notQueued = false): boolean {
    if (this.held.some((h) => h.name === w.name && this.conflicts(h.mode, w.mode))) return false;
    for (const q of this.queue) {
      if (q === w) return true;
      if (q.name === w.name && this.conflicts(q.mode, w.mode)) return false;
    }
    return notQueued;
  }

  private pump(): void {
    for (let progress = true; progress; ) {
      progress = false;
      for (const w of this.queue) {
        if (!this.grantable(w)) continue;
        this.queue.splice(this.queue.indexOf(w), 1);
        w.grant();
        progress = true;
        break;
      }
    }
  }

  private release(lock: Held): void {
    this.held.splice(this.held.indexOf(lock), 1);
    this.pump();
  }
}
