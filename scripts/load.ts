/**
 * Load run of the library against the sandbox: N concurrent clients (default 200), each creating
 * a customer, logging in by email OTP (challenge → HPKE-sealed code → two-leg signed verify) and
 * doing M signed actions (default 20) through the library's transport and crypto: `PATCH
 * /internal-accounts/{id}` (14 of 20), `POST /auth/sessions/{id}/refresh` with a fresh key (4 of
 * 20: 5 sessions made, so the 4-session limit evicts the login session) and wallet export opened
 * with a fresh recipient key (2 of 20). Then a credential cycle: add an OAUTH credential (signed),
 * log in with it (a 6th session: the limit evicts another), delete it (signed by the email
 * session; its session must end with it). Afterwards every account is checked through the API:
 * exactly its email credential, exactly the newest email sessions active (none over the limit, no
 * orphan of the deleted credential, whose key no longer signs), the last update in place, every
 * export the same mnemonic and no two accounts sharing one.
 *
 * Prints throughput, latency percentiles (per HTTP request and per action) and the unexpected
 * statuses (must be 0). Exit code 1 when anything was unexpected or inconsistent.
 *
 *   npx tsx scripts/load.ts                         # sandbox in a child process (both cores)
 *   LOAD_CLIENTS=20 LOAD_ACTIONS=5 npx tsx scripts/load.ts
 *   SANDBOX_URL=http://127.0.0.1:8787/2025-10-13 npx tsx scripts/load.ts   # a running sandbox
 *   LOAD_JSON=load.json npx tsx scripts/load.ts     # also write the report as JSON
 *
 * `runLoad` is exported for the small version in test/robustness/load.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  generateRecipientKey,
  generateSessionKey,
  oauthNonce,
  type SessionKey,
} from '../src/crypto/index.js';
import { buildEncryptedOtpBundle, openExportBundle } from '../src/crypto/enclave.js';
import { isWalletError } from '../src/errors.js';
import { createClient, type Client, type RequestLogEntry } from '../src/transport/index.js';

export const SANDBOX_BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
export const SANDBOX_OTP = '000000';

/** One action per slot, repeated: 7 updates, 2 refreshes, 1 export in every 10. */
const MIX = ['update', 'refresh', 'update', 'update', 'export', 'update', 'refresh', 'update', 'update', 'update'] as const;
type ActionKind = (typeof MIX)[number];
const SESSION_LIMIT = 4;

export interface LoadOptions {
  /** The sandbox's `{base_url}`. */
  baseUrl: string;
  /** The enclave key trusted for OTP target bundles and export envelopes. */
  enclavePublicKey: string;
  clients: number;
  actions: number;
  /** Add, use and delete an OAUTH credential after the actions; default true. */
  credentialCycle?: boolean;
  /** Platform credentials header; default the sandbox defaults. */
  authorization?: string;
  /** Per HTTP request; default 60 s. */
  timeoutMs?: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface LoadReport {
  clients: number;
  actionsPerClient: number;
  /** Signed actions completed (login and credential cycle not counted). */
  signedActions: number;
  actionsByKind: Record<ActionKind, number>;
  /** Clients that added an OAUTH credential, logged in with it and deleted it. */
  credentialCycles: number;
  logins: number;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  signedActionsPerSecond: number;
  /** Per HTTP request (body read included). */
  requestLatencyMs: Percentiles;
  /** Per signed action (both legs, signing included; export opening included). */
  actionLatencyMs: Percentiles;
  statuses: Record<string, number>;
  /** Every request or call that did not go as the contract says. */
  unexpected: string[];
  failedClients: number;
  /** Consistency problems found afterwards through the API (must be empty). */
  inconsistencies: string[];
  /** Accounts checked afterwards, and how many active sessions each had. */
  accountsChecked: number;
  activeSessionsPerAccount: Record<string, number>;
}

interface ClientRecord {
  index: number;
  customerId: string;
  accountId: string;
  credentialId: string;
  /** Every session this client made, oldest first. */
  sessionIds: string[];
  lastPatch: { nickname: string; privateEnabled: boolean } | undefined;
  mnemonics: string[];
  /** The deleted OAUTH credential, its session and that session's key (which must no longer sign). */
  deleted: { credentialId: string; sessionId: string; key: SessionKey } | undefined;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
  return { p50: at(50), p95: at(95), p99: at(99), max: round(sorted[sorted.length - 1] ?? 0) };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function enc(id: string): string {
  return encodeURIComponent(id);
}

function describe(error: unknown): string {
  if (isWalletError(error)) return `${error.code}${error.status !== undefined ? ` (${error.status})` : ''}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A client of the library's transport with the platform credentials (as the proxy would add them). */
export function platformClient(baseUrl: string, authorization = SANDBOX_BASIC, extra: { onRequest?: (e: RequestLogEntry) => void; timeoutMs?: number } = {}): Client {
  return createClient({ baseUrl, headers: { Authorization: authorization }, ...extra });
}

/** Creates a customer with an email; returns its embedded wallet and the wallet's EMAIL_OTP credential. */
export async function createWalletCustomer(client: Client, tag: string): Promise<{ customerId: string; accountId: string; credentialId: string; email: string }> {
  const email = `${tag}@example.com`;
  const customer = await client.request<{ id: string }>({
    method: 'POST',
    path: '/customers',
    body: { customerType: 'INDIVIDUAL', platformCustomerId: tag, email, fullName: 'Load Test', currencies: ['USD'] },
  });
  const accounts = await client.request<{ data: { id: string; type: string }[] }>({ method: 'GET', path: '/internal-account', query: { customerId: customer.id } });
  const wallet = accounts.data.find((a) => a.type === 'EMBEDDED_WALLET');
  if (!wallet) throw new Error(`customer ${customer.id} has no EMBEDDED_WALLET`);
  const credentials = await client.request<{ data: { id: string; type: string }[] }>({ method: 'GET', path: '/auth/credentials', query: { accountId: wallet.id } });
  const credential = credentials.data.find((c) => c.type === 'EMAIL_OTP');
  if (!credential) throw new Error(`wallet ${wallet.id} has no EMAIL_OTP credential`);
  return { customerId: customer.id, accountId: wallet.id, credentialId: credential.id, email };
}

export interface LoggedIn {
  sessionId: string;
  key: SessionKey;
  answer: Record<string, unknown>;
}

/** Email OTP login with the library's crypto: challenge, sealed code, signed two-leg verify. */
export async function emailOtpLogin(client: Client | LoadClients, credentialId: string, enclavePublicKey: string, otpCode = SANDBOX_OTP): Promise<LoggedIn> {
  const plain = 'plain' in client ? client.plain : client;
  const signed = 'plain' in client ? client.signed : client;
  const challenge = await plain.request<{ otpEncryptionTargetBundle: string }>({ method: 'POST', path: `/auth/credentials/${enc(credentialId)}/challenge`, body: {} });
  const key = await generateSessionKey();
  const encryptedOtpBundle = await buildEncryptedOtpBundle({
    targetBundle: challenge.otpEncryptionTargetBundle,
    otpCode,
    sessionPublicKeyHex: key.publicKeyHex,
    trustedKeys: [enclavePublicKey],
  });
  const answer = await signed.signed<Record<string, unknown>>({
    method: 'POST',
    path: `/auth/credentials/${enc(credentialId)}/verify`,
    body: { type: 'EMAIL_OTP', encryptedOtpBundle },
    signer: key,
    purpose: 'otp-login',
  });
  return { sessionId: String(answer.id), key, answer };
}

/** Plain calls and signed calls go through two clients so that each leg's expected status is known. */
export interface LoadClients {
  plain: Client;
  signed: Client;
}

async function runClient(index: number, options: LoadOptions, clients: LoadClients, actionTimes: number[], counts: Record<ActionKind, number>): Promise<ClientRecord> {
  const tag = `load-${Date.now().toString(36)}-${index}-${Math.random().toString(36).slice(2, 8)}`;
  const wallet = await createWalletCustomer(clients.plain, tag);
  const login = await emailOtpLogin(clients, wallet.credentialId, options.enclavePublicKey);
  const client = clients.signed;
  const record: ClientRecord = { index, ...wallet, sessionIds: [login.sessionId], lastPatch: undefined, mnemonics: [], deleted: undefined };
  let key = login.key;
  let sessionId = login.sessionId;
  for (let i = 0; i < options.actions; i++) {
    const kind = MIX[i % MIX.length]!;
    const started = performance.now();
    if (kind === 'update') {
      const patch = { nickname: `${tag}-${i}`, privateEnabled: i % 2 === 0 };
      const account = await client.signed<{ id: string; nickname?: string }>({ method: 'PATCH', path: `/internal-accounts/${enc(wallet.accountId)}`, body: patch, signer: key, purpose: 'update-internal-account' });
      if (account.id !== wallet.accountId || account.nickname !== patch.nickname) throw new Error(`update ${i} answered ${JSON.stringify(account)}`);
      record.lastPatch = patch;
    } else if (kind === 'refresh') {
      const next = await generateSessionKey();
      const session = await client.signed<{ id: string }>({ method: 'POST', path: `/auth/sessions/${enc(sessionId)}/refresh`, body: { clientPublicKey: next.publicKeyHex }, signer: key, purpose: 'refresh-session' });
      key = next;
      sessionId = session.id;
      record.sessionIds.push(session.id);
    } else {
      const recipient = await generateRecipientKey();
      const answer = await client.signed<{ encryptedWalletCredentials: string }>({
        method: 'POST',
        path: `/internal-accounts/${enc(wallet.accountId)}/export`,
        body: { clientPublicKey: recipient.publicKeyUncompressedHex },
        signer: key,
        purpose: 'export-wallet',
      });
      const opened = await openExportBundle({
        bundle: answer.encryptedWalletCredentials,
        recipientKey: { privateKey: recipient.privateKey, publicKey: recipient.publicKey },
        trustedKeys: [options.enclavePublicKey],
      });
      record.mnemonics.push(opened.mnemonic);
    }
    actionTimes.push(performance.now() - started);
    counts[kind]++;
  }
  if (options.credentialCycle !== false) record.deleted = await credentialCycle(options, clients, wallet, key);
  return record;
}

/** Adds an OAUTH credential (signed), logs in with it, deletes it (signed by the email session). */
async function credentialCycle(
  options: LoadOptions,
  clients: LoadClients,
  wallet: { accountId: string; email: string },
  emailKey: SessionKey,
): Promise<NonNullable<ClientRecord['deleted']>> {
  const token = async (nonce: string): Promise<string> =>
    (await clients.plain.request<{ oidcToken: string }>({ method: 'POST', path: '/sandbox/oauth/token', body: { email: wallet.email, nonce } })).oidcToken;
  const added = await clients.signed.signed<{ id: string }>({
    method: 'POST',
    path: '/auth/credentials',
    body: { type: 'OAUTH', accountId: wallet.accountId, oidcToken: await token('registration') },
    signer: emailKey,
    purpose: 'add-credential',
  });
  const key = await generateSessionKey();
  const session = await clients.plain.request<{ id: string }>({
    method: 'POST',
    path: `/auth/credentials/${enc(added.id)}/verify`,
    body: { type: 'OAUTH', oidcToken: await token(await oauthNonce(key.publicKeyHex)), clientPublicKey: key.publicKeyHex },
  });
  await clients.signed.signed({ method: 'DELETE', path: `/auth/credentials/${enc(added.id)}`, signer: emailKey, purpose: 'delete-credential' });
  return { credentialId: added.id, sessionId: session.id, key };
}

/** Checks one account through the API; returns its problems and its active-session count. */
/**
 * Email sessions still active at the end: the newest up to the limit, one fewer when the credential
 * cycle's OAuth login met a full account (it evicted the oldest, then ended with its credential).
 */
export function expectedActiveSessions(emailSessions: number, credentialCycle: boolean): number {
  const afterActions = Math.min(emailSessions, SESSION_LIMIT);
  return credentialCycle && afterActions === SESSION_LIMIT ? SESSION_LIMIT - 1 : afterActions;
}

async function checkAccount(client: Client, r: ClientRecord): Promise<{ problems: string[]; active: number }> {
  const expectedSessions = expectedActiveSessions(r.sessionIds.length, r.deleted !== undefined);
  const problems: string[] = [];
  const where = `client ${r.index} (${r.accountId})`;
  const credentials = await client.request<{ data: { id: string; type: string; accountId: string }[] }>({ method: 'GET', path: '/auth/credentials', query: { accountId: r.accountId } });
  if (credentials.data.length !== 1 || credentials.data[0]?.id !== r.credentialId || credentials.data[0]?.accountId !== r.accountId) {
    problems.push(`${where}: credentials ${JSON.stringify(credentials.data.map((c) => c.id))}, expected only ${r.credentialId}`);
  }
  const credentialIds = new Set(credentials.data.map((c) => c.id));
  const sessions = await client.request<{ data: { id: string; authMethodId?: string; expiresAt: string; encryptedSessionSigningKey?: unknown }[] }>({
    method: 'GET',
    path: '/auth/sessions',
    query: { accountId: r.accountId },
  });
  const active = sessions.data.map((s) => s.id);
  if (active.length > SESSION_LIMIT) problems.push(`${where}: ${active.length} active sessions, over the limit of ${SESSION_LIMIT}`);
  if (active.length !== expectedSessions) problems.push(`${where}: ${active.length} active sessions, expected ${expectedSessions}`);
  const newest = r.sessionIds.slice(-expectedSessions).sort();
  if (JSON.stringify([...active].sort()) !== JSON.stringify(newest)) problems.push(`${where}: active ${JSON.stringify(active)} are not the newest made ${JSON.stringify(newest)}`);
  if (!active.includes(r.sessionIds[r.sessionIds.length - 1]!)) problems.push(`${where}: the current session is not active`);
  for (const s of sessions.data) {
    if (s.authMethodId === undefined || !credentialIds.has(s.authMethodId)) problems.push(`${where}: orphan session ${s.id} of credential ${String(s.authMethodId)}`);
    if ('encryptedSessionSigningKey' in s) problems.push(`${where}: session list carries encryptedSessionSigningKey`);
  }
  if (r.lastPatch !== undefined) {
    const accounts = await client.request<{ data: { id: string; nickname?: string; privateEnabled?: boolean }[] }>({ method: 'GET', path: '/internal-account', query: { customerId: r.customerId } });
    const wallet = accounts.data.find((a) => a.id === r.accountId);
    if (wallet?.nickname !== r.lastPatch.nickname || (wallet.privateEnabled !== undefined && wallet.privateEnabled !== r.lastPatch.privateEnabled)) {
      problems.push(`${where}: account shows ${JSON.stringify(wallet)}, last update was ${JSON.stringify(r.lastPatch)}`);
    }
  }
  if (new Set(r.mnemonics).size > 1) problems.push(`${where}: exports gave ${new Set(r.mnemonics).size} different mnemonics`);
  if (r.deleted !== undefined) {
    const { credentialId, sessionId, key } = r.deleted;
    if (active.includes(sessionId) || sessions.data.some((s) => s.authMethodId === credentialId)) problems.push(`${where}: a session of the deleted credential is still active`);
    // The deleted credential's session key must no longer sign anything.
    const refused = await client
      .signed({ method: 'PATCH', path: `/internal-accounts/${enc(r.accountId)}`, body: { nickname: 'after deletion' }, signer: key, purpose: 'orphan-check' })
      .then(() => undefined, (e: unknown) => e);
    if (!isWalletError(refused) || refused.status !== 401) problems.push(`${where}: the deleted credential's session still signs (${describe(refused)})`);
  }
  return { problems, active: active.length };
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const requestTimes: number[] = [];
  const actionTimes: number[] = [];
  const statuses: Record<string, number> = {};
  const unexpected: string[] = [];
  const counts: Record<ActionKind, number> = { update: 0, refresh: 0, export: 0 };
  /** `signedCalls`: the client used for signed calls, whose first leg must be the 202 challenge. */
  const hook = (signedCalls: boolean) => (e: RequestLogEntry): void => {
    requestTimes.push(e.ms);
    const key = e.status === undefined ? `no answer (${e.error ?? '?'})` : String(e.status);
    statuses[key] = (statuses[key] ?? 0) + 1;
    const ok = e.status !== undefined && e.status >= 200 && e.status < 300 && (!signedCalls || (e.leg === 1 ? e.status === 202 : e.status !== 202));
    if (!ok) unexpected.push(`${e.method} ${e.path} leg ${e.leg} → ${key}`);
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const clients: LoadClients = {
    plain: platformClient(options.baseUrl, options.authorization, { onRequest: hook(false), timeoutMs }),
    signed: platformClient(options.baseUrl, options.authorization, { onRequest: hook(true), timeoutMs }),
  };

  const started = performance.now();
  const settled = await Promise.allSettled(Array.from({ length: options.clients }, (_, i) => runClient(i, options, clients, actionTimes, counts)));
  const seconds = (performance.now() - started) / 1000;
  const records: ClientRecord[] = [];
  for (const [i, s] of settled.entries()) {
    if (s.status === 'fulfilled') records.push(s.value);
    else unexpected.push(`client ${i} failed: ${describe(s.reason)}`);
  }
  const requests = requestTimes.length;

  // Consistency, through the API, after the load (not timed; requests not counted above).
  const checker = platformClient(options.baseUrl, options.authorization, { timeoutMs });
  const inconsistencies: string[] = [];
  const activeSessionsPerAccount: Record<string, number> = {};
  for (const r of records) {
    const { problems, active } = await checkAccount(checker, r);
    inconsistencies.push(...problems);
    activeSessionsPerAccount[String(active)] = (activeSessionsPerAccount[String(active)] ?? 0) + 1;
  }
  const mnemonicOwners = new Map<string, number>();
  for (const r of records) {
    const m = r.mnemonics[0];
    if (m === undefined) continue;
    if (mnemonicOwners.has(m)) inconsistencies.push(`clients ${mnemonicOwners.get(m)} and ${r.index} exported the same mnemonic`);
    mnemonicOwners.set(m, r.index);
  }

  const signedActions = counts.update + counts.refresh + counts.export;
  return {
    clients: options.clients,
    actionsPerClient: options.actions,
    signedActions,
    actionsByKind: counts,
    credentialCycles: records.filter((r) => r.deleted !== undefined).length,
    logins: records.length,
    requests,
    seconds: Math.round(seconds * 100) / 100,
    requestsPerSecond: round(requests / seconds),
    signedActionsPerSecond: round(signedActions / seconds),
    requestLatencyMs: percentiles(requestTimes),
    actionLatencyMs: percentiles(actionTimes),
    statuses,
    unexpected,
    failedClients: settled.length - records.length,
    inconsistencies,
    accountsChecked: records.length,
    activeSessionsPerAccount,
  };
}

// ---- command line ----

function startChildSandbox(): Promise<{ url: string; enclave: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
      cwd: new URL('..', import.meta.url),
      env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_LOG: 'off' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /sandbox listening: (\S+)/.exec(out)?.[1];
      const enclave = /enclave public key: ([0-9a-f]+)/.exec(out)?.[1];
      if (url !== undefined && enclave !== undefined) resolve({ url, enclave, child });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${String(code)}`)));
  });
}

async function main(): Promise<void> {
  const clients = Number(process.env.LOAD_CLIENTS ?? 200);
  const actions = Number(process.env.LOAD_ACTIONS ?? 20);
  if (!Number.isSafeInteger(clients) || clients < 1 || !Number.isSafeInteger(actions) || actions < 0) throw new Error('LOAD_CLIENTS and LOAD_ACTIONS must be whole numbers');
  const own = process.env.SANDBOX_URL === undefined ? await startChildSandbox() : undefined;
  try {
    const baseUrl = process.env.SANDBOX_URL ?? own!.url;
    const enclavePublicKey =
      own?.enclave ??
      (await platformClient(baseUrl).request<{ enclaveQuorumPublic: string }>({ method: 'GET', path: '/sandbox/enclave' })).enclaveQuorumPublic;
    const report = await runLoad({ baseUrl, enclavePublicKey, clients, actions });
    const lines = [
      `clients: ${report.clients} concurrent, ${report.actionsPerClient} signed actions each (${JSON.stringify(report.actionsByKind)}), logins ${report.logins}, credential cycles ${report.credentialCycles}`,
      `requests: ${report.requests} in ${report.seconds} s → ${report.requestsPerSecond} requests/s, ${report.signedActionsPerSecond} signed actions/s`,
      `request latency ms: p50 ${report.requestLatencyMs.p50}, p95 ${report.requestLatencyMs.p95}, p99 ${report.requestLatencyMs.p99}, max ${report.requestLatencyMs.max}`,
      `signed action latency ms: p50 ${report.actionLatencyMs.p50}, p95 ${report.actionLatencyMs.p95}, p99 ${report.actionLatencyMs.p99}, max ${report.actionLatencyMs.max}`,
      `statuses: ${JSON.stringify(report.statuses)}`,
      `unexpected: ${report.unexpected.length}; failed clients: ${report.failedClients}`,
      `consistency: ${report.accountsChecked} accounts checked, active sessions per account ${JSON.stringify(report.activeSessionsPerAccount)}, problems ${report.inconsistencies.length}`,
      ...report.unexpected.slice(0, 10).map((u) => `  unexpected: ${u}`),
      ...report.inconsistencies.slice(0, 10).map((p) => `  inconsistent: ${p}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (process.env.LOAD_JSON) writeFileSync(process.env.LOAD_JSON, `${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = report.unexpected.length === 0 && report.inconsistencies.length === 0 && report.failedClients === 0 ? 0 : 1;
  } finally {
    own?.child.kill('SIGTERM');
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`load: ${describe(error)}\n`);
    process.exitCode = 1;
  });
}
