// GET /api/wallet-bootstrap: what the signed-in user's browser needs for its wallet.
import { bootstrapResponse } from 'embedded-wallet-signer/proxy';
import { bootstrapFor, userOf } from '../../../lib/server';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const user = userOf(request);
  if (!user) return Response.json({ code: 'LOGIN_REQUIRED' }, { status: 401 });
  return bootstrapResponse(bootstrapFor(user));
}
