/** A small typed event emitter. A listener that throws never breaks the library or other listeners. */
import { invalidArgument } from '../errors.js';

export type Listener<P> = (payload: P) => void;

export interface Emitter<Events extends object> {
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void;
  emit<E extends keyof Events>(event: E, payload: Events[E]): void;
  clear(): void;
}

/** Hands a listener's exception to the host (browser console via reportError); swallowed elsewhere. */
function report(error: unknown): void {
  const reportError = (globalThis as { reportError?: (e: unknown) => void }).reportError;
  if (typeof reportError === 'function') {
    try {
      reportError(error);
    } catch {
      // nothing more to do
    }
  }
}

export function createEmitter<Events extends object>(): Emitter<Events> {
  const listeners = new Map<keyof Events, Set<Listener<never>>>();
  return {
    on(event, listener) {
      if (typeof listener !== 'function') throw invalidArgument('listener', 'a function');
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      const entry = listener as Listener<never>;
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
    emit(event, payload) {
      const set = listeners.get(event);
      if (!set) return;
      for (const listener of [...set]) {
        try {
          (listener as Listener<typeof payload>)(payload);
        } catch (error) {
          report(error);
        }
      }
    },
    clear() {
      listeners.clear();
    },
  };
}
