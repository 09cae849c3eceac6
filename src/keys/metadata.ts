/**
 * Metadata beside the keys (e.g. the session manager's session records), in the same backend under
 * `meta:<name>` so that it falls back to memory together with the keys: after a fallback nothing
 * claims a key that could not be kept. Values are JSON-safe: they are stored as a JSON round-trip copy.
 */
import { WalletError, invalidArgument } from '../errors.js';
import type { KeyStoreBackend } from './types.js';

export const META_PREFIX = 'meta:';

/** Small JSON records beside the keys (the session manager's state), in the key store's backend. */
export interface MetadataStore {
  /** Stores a JSON-safe value (a copy made with JSON.stringify/parse; undefined fields are dropped). */
  put(name: string, value: unknown): Promise<void>;
  /** The stored value, or undefined. The type parameter is the caller's assertion about the shape. */
  get<T = unknown>(name: string): Promise<T | undefined>;
  /** Removes the record (nothing when absent). */
  delete(name: string): Promise<void>;
  /** Every metadata record as [name, value] pairs. */
  list(): Promise<Array<[string, unknown]>>;
}

type Io = <T>(kind: 'read' | 'write', op: (backend: KeyStoreBackend) => Promise<T>) => Promise<T>;

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw invalidArgument('name', 'a non-empty string');
  return META_PREFIX + name;
}

function jsonCopy(value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'metadata value must be JSON-serialisable', { cause });
  }
  if (text === undefined) throw invalidArgument('value', 'a JSON-serialisable value');
  return JSON.parse(text) as unknown;
}

export function createMetadataStore(io: Io): MetadataStore {
  return {
    async put(name, value) {
      const key = checkName(name);
      const copy = jsonCopy(value);
      await io('write', (b) => b.set(key, copy));
    },
    async get<T = unknown>(name: string): Promise<T | undefined> {
      const key = checkName(name);
      return (await io('read', (b) => b.get(key))) as T | undefined;
    },
    async delete(name) {
      const key = checkName(name);
      await io('write', (b) => b.delete(key));
    },
    async list() {
      const all = await io('read', (b) => b.entries());
      return all.filter(([key]) => key.startsWith(META_PREFIX)).map(([key, value]): [string, unknown] => [key.slice(META_PREFIX.length), value]);
    },
  };
}
