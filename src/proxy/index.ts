/**
 * `embedded-wallet-signer/proxy`: the platform-backend piece. It holds the platform credentials,
 * forwards only the routes the library uses, and confines each signed-in user to their own
 * customer, accounts and what hangs off them (`currentUser`). Runs anywhere `Request`/`Response`
 * exist; `toNodeHandler` and `nodeMiddleware` adapt it to `http.createServer` and Express/Connect.
 */
export { createProxy } from './create-proxy.js';
export { DEFAULT_ALLOW, type IdKind, type RecordKind, type RouteScope } from './routes.js';
export { DEFAULT_OWNERS, type OwnerResolver, type OwnerResolvers, type RecordOwner } from './owners.js';
export { DEFAULT_SIGNATURE_HEADER, RESPONSE_HEADERS } from './headers.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './options.js';
export { PROXY_ERROR_CODES, type ProxyErrorCode } from './responses.js';
export { withCors, type CorsOptions } from './cors.js';
export { DEFAULT_APP_ROUTES } from './signer-origin.js';
export { toNodeHandler, nodeMiddleware, type FetchHandler, type NodeAdapterOptions, type NodeMiddleware, type NodeRequestListener } from './node.js';
export type { CurrentUser, CurrentUserResolver } from './ownership.js';
export type { OwnerCacheOptions } from './owner-cache.js';
export type { AllowRule, AuthorizeContext, AuthorizeHook, ContactContext, ProxyHandler, ProxyLogEntry, ProxyLogger, ProxyMethod, ProxyOptions } from './types.js';
export { DEFAULT_IS_WALLET, type WalletResolver } from './wallets.js';
export { provisionCustomer, findEmbeddedWallet, type NewCustomer, type ProvisionedCustomer, type ServiceOptions } from './provision.js';
export { walletBootstrap, bootstrapResponse, type WalletBootstrap } from './bootstrap.js';
export { serviceFromEnv, SERVICE_ENV } from './service.js';
export { nextRouteHandlers, expressMiddleware, proxyPlugin, type RouteHandlers, type ProxyVitePlugin, type ConnectServerLike } from './adapters.js';
export { emailLoginProxy, type EmailLoginProxyOptions, type LoginContact, type LoginCustomer } from './email-login.js';
export { readAppSession, type AppSession, type LoginCookieOptions } from './login-cookie.js';
export type { LoginLimits, RateWindow } from './login-limit.js';
