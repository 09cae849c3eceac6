/**
 * Framework adapters around the fetch-standard proxy. Typed structurally: the package does not
 * depend on Next.js, Express or Vite.
 *
 * - Next.js App Router, `app/api/[...path]/route.ts`:
 *   `export const { GET, POST, PATCH, DELETE, OPTIONS } = nextRouteHandlers(proxy);` with
 *   `createProxy({ prefix: '/api', … })`. The library calls the first four methods: exporting only
 *   `POST` makes Next answer 405 to the others. `OPTIONS` is for frame mode: the signer page, on an
 *   origin of its own, sends CORS preflights, which a proxy wrapped in `withCors` answers (without
 *   it, the proxy refuses them as it refuses any undeclared route).
 * - Express / Connect: `app.use(expressMiddleware(proxy))` (or mounted: `app.use('/api', …)`).
 *   Mount it before any body parser (`express.json()`): the proxy forwards the body's exact bytes.
 * - Vite dev server: `plugins: [proxyPlugin(proxy)]` (also `vite preview`).
 * - Node: `http.createServer(toNodeHandler(proxy))`; fetch runtimes: the proxy itself.
 */
import { nodeMiddleware, type FetchHandler, type NodeAdapterOptions, type NodeMiddleware } from './node.js';

/** The request methods the library uses, each answered by the proxy. */
export interface RouteHandlers {
  /** Answers `GET` requests (lists, reads). */
  readonly GET: (request: Request) => Promise<Response>;
  /** Answers `POST` requests (logins, signed actions). */
  readonly POST: (request: Request) => Promise<Response>;
  /** Answers `PATCH` requests (account updates, contact changes). */
  readonly PATCH: (request: Request) => Promise<Response>;
  /** Answers `DELETE` requests (credentials, sessions). */
  readonly DELETE: (request: Request) => Promise<Response>;
  /** Answers `OPTIONS` requests: in frame mode the signer page's CORS preflights (`withCors`). */
  readonly OPTIONS: (request: Request) => Promise<Response>;
}

/**
 * Route handlers for a Next.js App Router catch-all (`app/api/[...path]/route.ts`), or any router
 * that takes one fetch handler per method. Give `createProxy` the route's prefix (`/api`).
 */
export function nextRouteHandlers(proxy: FetchHandler): RouteHandlers {
  const handle = async (request: Request): Promise<Response> => proxy(request);
  return Object.freeze({ GET: handle, POST: handle, PATCH: handle, DELETE: handle, OPTIONS: handle });
}

/** Express / Connect middleware: `nodeMiddleware` under the name Express users look for. */
export function expressMiddleware(proxy: FetchHandler, options?: NodeAdapterOptions): NodeMiddleware {
  return nodeMiddleware(proxy, options);
}

/** The part of Vite's dev (and preview) server the plugin uses. */
export interface ConnectServerLike {
  /** The Connect stack the plugin adds the proxy to. */
  readonly middlewares: { use(middleware: NodeMiddleware): unknown };
}

/** A Vite plugin, structurally (`name`, `configureServer`, `configurePreviewServer`). */
export interface ProxyVitePlugin {
  /** The plugin's name. */
  readonly name: string;
  /** Mounts the proxy on the dev server. */
  configureServer(server: ConnectServerLike): void;
  /** Mounts the proxy on the preview server. */
  configurePreviewServer(server: ConnectServerLike): void;
}

/**
 * Mounts the proxy on Vite's dev server (and `vite preview`), before Vite's own middlewares, so the
 * app and the proxy share one origin in development: `plugins: [proxyPlugin(proxy)]`.
 */
export function proxyPlugin(proxy: FetchHandler, options?: NodeAdapterOptions): ProxyVitePlugin {
  const middleware = nodeMiddleware(proxy, options);
  return {
    name: 'embedded-wallet-signer-proxy',
    configureServer(server) {
      server.middlewares.use(middleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware);
    },
  };
}
