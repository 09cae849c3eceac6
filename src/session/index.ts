export { createSessionManager, type ManagedSessions, type SessionManagerOptions } from './manager.js';
export { createKeyPlan } from './key-plan.js';
export { parseAuthSession } from './records.js';
export { createServerClock, type ServerClock } from './server-clock.js';
export { createSessionService, type SessionService, type SigningOptions } from './service.js';
export type { ChannelLike, LockManagerLike, SessionHost } from './host.js';
export { signedWithSession, type SessionCallOptions } from './signed-call.js';
export { WALLET_CONTEXT, walletContext, type PasskeyConfig, type WalletContext } from './context.js';
export type { KeyPlan, LoginTicket, LogoutReason, Session, SessionEvents, SessionManager, SignerOptions } from './types.js';
// For the session layer's own lazy chunks (changes.ts, migrate.ts), which import through this barrel
// like the flows and actions do (see changes.ts); not re-exported by src/index.ts.
export { currentOf } from './view.js';
export { ACCOUNT_PREFIX } from './state.js';
