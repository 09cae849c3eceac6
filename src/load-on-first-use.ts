/**
 * Code loaded on first use: the login flows and signed actions (wallet.ts), the rarer session
 * changes and the 0.1 migration (session/manager.ts, load.ts), the enclave-bundle crypto of the
 * public entry (src/enclave-bundles.ts). Each `load` is a dynamic `import()`, which an app's bundler turns
 * into a chunk of its own, fetched at the first call; `npm run size` reports those chunks apart from
 * the startup chunks.
 *
 * Every module loaded this way is one of src/chunks/: it imports the package entry
 * (`import '../index.js'`), then re-exports the code (a flow, the actions, …). A bundler that splits
 * code (esbuild, as `npm run size` measures) puts each piece of the startup code into a chunk by the
 * set of lazy chunks that reach it, and each chunk is gzipped on its own. Without that import, lazy
 * modules reaching different parts of the startup code split it into several chunks (measured: 4
 * startup chunks, 22.79 KB gz, where 2 were 21.45); with it, every lazy chunk reaches all of it and
 * the startup is the entry's re-exports plus one shared chunk (19.09 KB gz where the entry and one
 * shared chunk were 19.70). The entry is evaluated already when a lazy chunk loads, so the import
 * costs nothing at run time. Only the chunk modules carry it: the code they re-export stays plain,
 * and an entry that imports that code directly (src/legacy.ts imports two flows) does not pull in the
 * whole main entry. test/size/startup-chunks.test.ts checks the two chunks and the rule.
 */
import { WalletError } from './errors.js';

/**
 * The returned function runs `use` with the module: synchronously once it is loaded (so that a
 * passkey ceremony started after `preparePasskeyRegistration` stays inside the user's click), else
 * after loading it. A failed load (offline, a deploy replaced the chunk) is NETWORK_ERROR and is
 * tried again on the next call. `use` must return a promise (not throw).
 */
export function loadOnFirstUse<M>(load: () => Promise<M>, what: string): <R>(use: (module: M) => Promise<R>) => Promise<R> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  return (use) => {
    if (loaded !== undefined) return use(loaded);
    loading ??= load().then(
      (module) => (loaded = module),
      (cause: unknown) => {
        loading = undefined;
        throw new WalletError('NETWORK_ERROR', `could not load the ${what} code`, { cause });
      },
    );
    return loading.then(use);
  };
}
