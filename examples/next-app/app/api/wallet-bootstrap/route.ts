// GET /api/wallet-bootstrap: what the browser needs for its wallet (in-origin: proxy path and
// trusted enclave keys; frame mode: the signer page's URL). It names no user, so any visitor may
// read it; the browser fetches it at runtime.
import { bootstrap } from '../../../lib/server';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(bootstrap(), { headers: { 'cache-control': 'no-store' } });
}
