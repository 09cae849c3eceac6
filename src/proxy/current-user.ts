/** The signed-in user of a request, as `ProxyOptions.currentUser` says, checked. */
import type { CurrentUser } from './ownership.js';
import type { ProxyConfig } from './options.js';
import { ProxyRefusal } from './responses.js';

/** The signed-in user, checked; a refusal when there is none (401) or the resolver misbehaves (500). */
export async function signedInUser(request: Request, config: Pick<ProxyConfig, 'currentUser'>): Promise<CurrentUser | ProxyRefusal> {
  let user: unknown;
  try {
    user = await config.currentUser?.(request);
  } catch {
    return new ProxyRefusal('INTERNAL_ERROR', 'The currentUser resolver failed.');
  }
  if (user === null || user === undefined) return new ProxyRefusal('LOGIN_REQUIRED', 'Sign in first.');
  const candidate = user as { customerId?: unknown; accountIds?: unknown; customerAccess?: unknown };
  const accountIds = candidate.accountIds;
  const access = candidate.customerAccess;
  if (
    typeof user !== 'object' ||
    typeof candidate.customerId !== 'string' ||
    candidate.customerId === '' ||
    (accountIds !== undefined && !(Array.isArray(accountIds) && accountIds.every((a) => typeof a === 'string'))) ||
    (access !== undefined && access !== 'read' && access !== 'write')
  ) {
    return new ProxyRefusal('INTERNAL_ERROR', "currentUser must answer {customerId, accountIds?, customerAccess?: 'read' | 'write'} or null.");
  }
  return {
    customerId: candidate.customerId,
    ...(accountIds === undefined ? {} : { accountIds: [...(accountIds as string[])] }),
    ...(access === undefined ? {} : { customerAccess: access }),
  };
}
