export { createSessionManager, type ManagedSessions, type SessionManagerOptions } from './manager.js';
export { createKeyPlan } from './key-plan.js';
export { parseAuthSession } from './records.js';
export { createServerClock, type ServerClock } from './server-clock.js';
export { createSessionService, type SessionService, type SessionSigner, type SigningOptions } from './service.js';
export type { ChannelLike, LockManagerLike, SessionHost } from './host.js';
export { signedBySession, signedWithSession, type SessionCallOptions } from './signed-call.js';
export { WALLET_CONTEXT, walletContext, type PasskeyConfig, type WalletContext } from './context.js';
export type { KeyPlan, LoginTicket, LogoutReason, Session, SessionEvents, SessionManager, SignerOptions, SigningTicket } from './types.js';
