/**
 * The browser's bootstrap document: what the app hands the signed-in user's browser so it can
 * create the wallet. The type is declared in src/types.ts (no Node types) and exported by both
 * entries, so `import type { WalletBootstrap } from 'embedded-wallet-signer'` pulls no `node:http`.
 */
import { invalidArgument } from '../errors.js';
import type { WalletBootstrap } from '../types.js';

export type { WalletBootstrap };

const HEX_KEY = /^04[0-9a-fA-F]{128}$/;

/**
 * The browser's bootstrap document, checked: `accountId` non-empty or absent, each trusted key an
 * uncompressed P-256 public key in hex (`04…`, 130 characters), `baseUrl` a path (`/api`) or an
 * http(s) URL. With an `accountId`, serve it to the signed-in user only (it names their account).
 */
export function walletBootstrap(input: WalletBootstrap): WalletBootstrap {
  if (typeof input !== 'object' || input === null) throw invalidArgument('bootstrap', 'an object');
  const { accountId, trustedKeys, baseUrl } = input;
  if (accountId !== undefined && (typeof accountId !== 'string' || accountId === '')) throw invalidArgument('accountId', 'a non-empty string, or absent (email-first login)');
  if (!Array.isArray(trustedKeys) || trustedKeys.length === 0 || !trustedKeys.every((k) => typeof k === 'string' && HEX_KEY.test(k))) {
    throw invalidArgument('trustedKeys', 'a non-empty array of uncompressed P-256 public keys in hex (04…, 130 characters)');
  }
  if (typeof baseUrl !== 'string' || !(/^\/[^/\\]/.test(baseUrl) || /^https?:\/\//.test(baseUrl))) throw invalidArgument('baseUrl', "a path such as '/api' or an http(s) URL");
  return { ...(accountId === undefined ? {} : { accountId }), trustedKeys: [...trustedKeys], baseUrl: baseUrl.replace(/\/+$/, '') };
}

/** {@link walletBootstrap} as a `200` JSON answer that no cache keeps. */
export function bootstrapResponse(input: WalletBootstrap): Response {
  return new Response(JSON.stringify(walletBootstrap(input)), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
