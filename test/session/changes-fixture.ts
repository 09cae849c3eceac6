// What the fast tests of changes.ts, refresher.ts and sign-out-others.ts share besides ops-fixture.ts:
// a scripted session service that records every end and refresh it is asked for (which session,
// signed by which key, with which options) and answers as the test says. The answers are the test's
// input; the signatures are real (the signer is asked and signs). Not a test file.
import type { Signer } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import type { KeyStore, MetadataStore } from '../../src/keys/index.js';
import type { SessionService, SessionSigner, SigningOptions } from '../../src/session/service.js';
import type { AuthSession } from '../../src/types.js';

/**
 * How the service answers one call: done, not active (404), refused (401 of the service), the app's
 * proxy refusing (401 LOGIN_REQUIRED, 403), or unreachable / busy.
 */
export type Answer = 'ok' | 'gone' | 'refused' | 'notFound' | 'loginRequired' | 'forbidden' | 'offline' | 'busy' | 'server';

export function failure(a: Exclude<Answer, 'ok' | 'gone'>): WalletError {
  switch (a) {
    case 'refused':
      return new WalletError('WALLET_SIGNATURE_INVALID', 'refused', { status: 401 });
    case 'notFound':
      return new WalletError('SESSION_NOT_FOUND', 'not found', { status: 404 });
    case 'loginRequired':
      return new WalletError('LOGIN_REQUIRED' as never, 'Sign in first.', { status: 401 });
    case 'forbidden':
      return new WalletError('FORBIDDEN' as never, 'not yours', { status: 403 });
    case 'busy':
      return new WalletError('RATE_LIMITED', 'later', { status: 429 });
    case 'server':
      return new WalletError('SERVER_ERROR', 'boom', { status: 503 });
    case 'offline':
      return new WalletError('NETWORK_ERROR', 'offline');
  }
}

export interface EndCall {
  id: string;
  key: string;
  automatic: boolean;
  approved: boolean;
  signal: AbortSignal | undefined;
}

export interface RefreshCall {
  id: string;
  clientPublicKey: string;
  key: string | undefined;
  automatic: boolean;
}

async function signerOf(signer: SessionSigner): Promise<Signer> {
  const s = typeof signer === 'function' ? await signer() : signer;
  // A real signature: a signer over a deleted or wrong key fails here.
  await s.sign(new TextEncoder().encode('stamp'));
  return s;
}

/**
 * A scripted service. `end` answers `endAnswer(id)` after asking the signer; `refresh` runs
 * `onRefresh` (the test's script: asks the signer, changes storage meanwhile, answers or throws);
 * `list` answers `listed()` (undefined: unreachable).
 */
export function scriptedService(script: {
  endAnswer?: (id: string) => Answer;
  onRefresh?: (call: { id: string; clientPublicKey: string; signer: () => Promise<Signer>; options: SigningOptions | undefined }) => Promise<AuthSession>;
  listed?: (accountId: string) => string[] | undefined;
}): SessionService & { ended: EndCall[]; refreshed: RefreshCall[]; listedAsked: number } {
  const svc = {
    ended: [] as EndCall[],
    refreshed: [] as RefreshCall[],
    listedAsked: 0,
    async list(accountId: string): Promise<AuthSession[]> {
      svc.listedAsked++;
      const ids = script.listed ? script.listed(accountId) : [];
      if (ids === undefined) throw new WalletError('NETWORK_ERROR', 'offline');
      return ids.map((id) => ({ id, accountId, type: 'EMAIL_OTP', nickname: 'x', createdAt: '', updatedAt: '', expiresAt: '' }) as AuthSession);
    },
    async end(id: string, signer: SessionSigner, options?: SigningOptions): Promise<boolean> {
      const s = await signerOf(signer);
      svc.ended.push({ id, key: s.publicKeyHex, automatic: options?.automatic === true, approved: options?.approved === true, signal: options?.signingSignal });
      const a = script.endAnswer?.(id) ?? 'ok';
      if (a === 'ok') return true;
      if (a === 'gone') return false;
      throw failure(a);
    },
    async refresh(id: string, clientPublicKey: string, signer: SessionSigner, options?: SigningOptions): Promise<AuthSession> {
      const call: RefreshCall = { id, clientPublicKey, key: undefined, automatic: options?.automatic === true };
      svc.refreshed.push(call);
      const ask = async (): Promise<Signer> => {
        const s = await signerOf(signer);
        call.key = s.publicKeyHex;
        return s;
      };
      if (!script.onRefresh) throw new Error('no refresh scripted');
      return script.onRefresh({ id, clientPublicKey, signer: ask, options });
    },
  };
  return svc;
}

/**
 * `inner` whose metadata writes (put, delete) fail with STORAGE_ERROR when `fail(name)` says so
 * (a quota, a broken backend); `over` replaces other members (e.g. a `delete` of keys that fails).
 */
export function faulty(inner: KeyStore, fail: (name: string) => boolean, over: Partial<KeyStore> = {}): KeyStore {
  const meta: MetadataStore = {
    get: (name) => inner.meta.get(name),
    list: () => inner.meta.list(),
    put: async (name, value) => {
      if (fail(name)) throw new WalletError('STORAGE_ERROR', `fixture: cannot write ${name}`);
      return inner.meta.put(name, value);
    },
    delete: async (name) => {
      if (fail(name)) throw new WalletError('STORAGE_ERROR', `fixture: cannot delete ${name}`);
      return inner.meta.delete(name);
    },
  };
  return Object.assign(Object.create(inner) as KeyStore, { meta }, over);
}
