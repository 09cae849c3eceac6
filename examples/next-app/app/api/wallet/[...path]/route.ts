// The proxy, mounted with nextRouteHandlers: every wallet call of the browser goes through it.
// OPTIONS too: in frame mode the signer page (another origin) sends CORS preflights, which the
// proxy's `withCors` answers (lib/server.ts); in-origin mode no browser sends one.
import { nextRouteHandlers } from 'embedded-wallet-signer/proxy';
import { walletProxy } from '../../../../lib/server';

export const dynamic = 'force-dynamic';
export const { GET, POST, PATCH, DELETE, OPTIONS } = nextRouteHandlers((request) => walletProxy()(request));
