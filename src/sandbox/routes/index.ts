/**
 * Every route module of the sandbox, registered on one router. A new resource module exports
 * `registerXRoutes(router)` and is added to the list below.
 */
import type { Router } from '../router.js';
import { registerContactVerificationRoutes } from './contact-verification.js';
import { registerCredentialRoutes } from './credentials.js';
import { registerCredentialVerifyRoutes } from './credential-verify.js';
import { registerCustomerRoutes } from './customers.js';
import { registerInternalAccountRoutes } from './internal-accounts.js';
import { registerOauthProviderRoutes } from './oauth-provider.js';
import { registerSandboxToolRoutes } from './sandbox-tools.js';
import { registerSessionRoutes } from './sessions.js';
import { registerCardRoutes } from './cards.js';
import { registerCardChangeRoutes } from './card-changes.js';
import { registerDelegatedKeyRoutes } from './delegated-keys.js';
import { registerQuoteRoutes } from './quotes.js';
import { registerTransactionRoutes } from './transactions.js';

export function registerRoutes(router: Router): void {
  registerCustomerRoutes(router);
  registerContactVerificationRoutes(router);
  registerInternalAccountRoutes(router);
  registerCredentialRoutes(router);
  registerCredentialVerifyRoutes(router);
  registerSessionRoutes(router);
  registerSandboxToolRoutes(router);
  registerOauthProviderRoutes(router);
  registerQuoteRoutes(router);
  registerTransactionRoutes(router);
  registerCardRoutes(router);
  registerCardChangeRoutes(router);
  registerDelegatedKeyRoutes(router);
}
