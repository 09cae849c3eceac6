/**
 * Code loaded on first use: the login flows and signed actions (wallet.ts), the rarer session
 * changes and the 0.1 migration (session/manager.ts, load.ts), the enclave-bundle crypto of the
 * public entry (src/enclave-bundles.ts), what sends a call (transport/client.ts). Each `load` is a
 * plain dynamic `import()` of the module that holds the code, which an app's bundler turns into a
 * chunk of its own, fetched at the first call; `npm run size` measures those chunks apart from the
 * startup ones in real consumer builds of the packed package (Vite 8, Vite 7, Next.js, webpack 5,
 * esbuild). No hint to a bundler: how an app's bundler groups the startup code is its own
 * business, and the checker of `npm run deps` keeps these imports from forming cycles.
 */
import { WalletError } from './errors.js';

/**
 * The returned function runs `use` with the module: synchronously once it is loaded (so that a
 * passkey ceremony started after `preparePasskeyRegistration` stays inside the user's click), else
 * after loading it. A failed load (offline, a deploy replaced the chunk) is NETWORK_ERROR and is
 * tried again on the next call: Chromium fetches the chunk again; Firefox and WebKit keep the failed
 * download in the page's module map until the page is reloaded (the chunk's URL is the bundler's, so
 * no other URL can be tried; e2e/portable/27-commit-code-unloadable.spec.ts). `use` must return a
 * promise (not throw).
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
