// GET /api/me: the app's own signed-in check, from the session cookie the email login set.
import { appSession } from '../../../lib/server';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  const session = await appSession(request);
  return Response.json(session === null ? { signedIn: false } : { signedIn: true, customerId: session.customerId, accountId: session.accountId }, { headers: { 'cache-control': 'no-store' } });
}
