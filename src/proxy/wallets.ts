/**
 * Which of a customer's internal accounts are embedded wallets (the accounts that have credentials
 * and sessions), decided without a field the spec does not define.
 *
 * The spec (§2.6) only says an internal account "can be of type EMBEDDED_WALLET": it names no field
 * that says so. The rule, in order:
 * 1. `ProxyOptions.isWallet(account)` when the app gives one: `true` / `false` decide;
 *    `undefined` falls through.
 * 2. The record's `type`, when it has one (the wire reference and the sandbox send it):
 *    `EMBEDDED_WALLET` is a wallet, any other value is not.
 * 3. A record without `type` is asked about: `GET /auth/credentials?accountId=` lists the
 *    credentials of "an embedded-wallet internal account" (spec §4.5). `200` → a wallet (and its
 *    credentials are known at once); a `400` or `404` → not a wallet. An account's kind never
 *    changes, so the answer is a fact the ownership cache may keep.
 */

/** `ProxyOptions.isWallet`: whether an internal account record is an embedded wallet; `undefined`: ask the service (rule 3 above). */
export type WalletResolver = (account: Readonly<Record<string, unknown>>) => boolean | undefined;

/** Rule 2 above: the record's `type` when present, else undecided. */
export const DEFAULT_IS_WALLET: WalletResolver = (account) => (account.type === undefined ? undefined : account.type === 'EMBEDDED_WALLET');

/** Statuses of `GET /auth/credentials?accountId=` that mean "this account is not a wallet" (rule 3). */
export const NOT_A_WALLET_STATUSES: readonly number[] = [400, 404];
