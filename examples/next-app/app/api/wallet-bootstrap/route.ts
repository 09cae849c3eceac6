// GET /api/wallet-bootstrap: what the browser needs for its wallet (proxy path, trusted enclave
// keys). It names no user, so any visitor may read it; the browser fetches it at runtime.
import { bootstrapResponse } from 'embedded-wallet-signer/proxy';
import { bootstrap } from '../../../lib/server';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return bootstrapResponse(bootstrap());
}
