// The proxy, mounted with nextRouteHandlers: every wallet call of the browser goes through it.
import { nextRouteHandlers } from 'embedded-wallet-signer/proxy';
import { walletProxy } from '../../../../lib/server';

export const dynamic = 'force-dynamic';
export const { GET, POST, PATCH, DELETE } = nextRouteHandlers((request) => walletProxy()(request));
