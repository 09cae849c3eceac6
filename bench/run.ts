/**
 * `npm run bench`: the library's costs in real Chromium, and one signed action end to end
 * (browser → proxy → sandbox on loopback). Writes bench/results.json and the results block of
 * BENCHMARKS.md. `npm run bench -- --quick` runs 100 iterations and writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type as osType } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright';
import { launchOptions } from '../scripts/chromium.mjs';
import { SANDBOX_OTP_CODE } from '../src/sandbox/index.js';
import { writeBenchmarksMd } from './report.js';
import { buildPage, createWalletCustomer, startBenchServer } from './server.js';
import { rounded, summarize, type Summary } from './stats.js';
import type { BenchPage, BundleVectors } from './types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const ITERATIONS = quick ? 100 : 1000;
const ACTION_ITERATIONS = quick ? 20 : 200;
const WARMUP = { stamp: quick ? 20 : 100, keyStore: 20, bundles: 20, actions: 20 };
const PAYLOADS = [200, 2048, 65536];
const RATIO_GOAL = 1.3;

const loadAtStart = loadavg();
const log = (line: string): void => console.log(`[bench ${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`);
const started = performance.now();

/** Calls one function of `globalThis.bench` in the page. */
function inPage<K extends keyof BenchPage>(page: Page, name: K, arg?: Parameters<BenchPage[K]>[0]): Promise<Awaited<ReturnType<BenchPage[K]>>> {
  return page.evaluate(
    ([fn, a]) => {
      const bench = globalThis.bench;
      if (!bench) throw new Error('bench page not loaded');
      return (bench[fn] as (x: unknown) => unknown)(a);
    },
    [name, arg] as const,
  ) as Promise<Awaited<ReturnType<BenchPage[K]>>>;
}

/** Reloads the bench page between phases: a clean heap, no open IndexedDB connections. */
async function freshPage(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(() => globalThis.bench !== undefined);
}

const r = (s: readonly number[]): Summary => rounded(summarize(s));
const round = (x: number, digits = 4): number => Number(x.toFixed(digits));

function chromiumVersion(executablePath: string | undefined): string | undefined {
  if (!executablePath) return undefined;
  try {
    return execFileSync(executablePath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const vectors = JSON.parse(readFileSync(join(root, '..', 'shared', 'vectors', 'wire-vectors.json'), 'utf8')) as BundleVectors;

if ((loadAtStart[0] ?? 0) > cpus().length) log(`warning: load average ${loadAtStart[0]?.toFixed(1)} on ${cpus().length} cores: other work will skew the figures`);
log('building the page (esbuild)');
const pageJs = await buildPage();
const server = await startBenchServer(pageJs);
const profileDir = mkdtempSync(join(tmpdir(), 'ews-bench-'));
let context: BrowserContext | undefined;
try {
  const launch = launchOptions();
  // A persistent profile on disk: IndexedDB in a default (incognito-like) context lives in memory
  // and would flatter the key store figures.
  context = await chromium.launchPersistentContext(profileDir, { ...launch, headless: true });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(server.url);
  await page.waitForFunction(() => globalThis.bench !== undefined);
  const cdp = await context.newCDPSession(page);
  const version = (await cdp.send('Browser.getVersion')) as { product: string; userAgent: string };
  const info = await inPage(page, 'info');
  log(`${version.product}, crossOriginIsolated=${info.crossOriginIsolated}, timer step ${(info.timerStepMs * 1000).toFixed(1)} µs`);

  const stampRuns = [];
  for (const payloadBytes of PAYLOADS) {
    log(`stamp vs raw sign, ${payloadBytes} B × ${ITERATIONS}`);
    stampRuns.push(await inPage(page, 'stampVsRaw', { payloadBytes, iterations: ITERATIONS, warmup: WARMUP.stamp }));
  }
  const setup = await createWalletCustomer(server.sandbox);
  // One OTP target bundle from the sandbox (through the proxy, as the browser gets it) for the seal bench.
  const challengeRes = await fetch(`${server.url}/api/auth/credentials/${encodeURIComponent(setup.credentialId)}/challenge`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  const targetBundle = ((await challengeRes.json()) as { otpEncryptionTargetBundle?: string }).otpEncryptionTargetBundle;
  if (typeof targetBundle !== 'string') throw new Error(`challenge → ${challengeRes.status} without otpEncryptionTargetBundle`);
  await freshPage(page);
  log(`bundles: OTP seal, sealed session key, export envelope × ${ITERATIONS}`);
  const bundleRun = await inPage(page, 'bundles', { iterations: ITERATIONS, warmup: WARMUP.bundles, targetBundle, enclavePublicKey: server.sandbox.enclavePublicKey, vectors });

  await freshPage(page);
  log(`signed action end to end × ${ACTION_ITERATIONS}`);
  const apiBeforeLogin = server.apiRequests;
  const loginRun = await inPage(page, 'login', { ...setup, enclavePublicKey: server.sandbox.enclavePublicKey, otpCode: SANDBOX_OTP_CODE });
  const apiBeforeActions = server.apiRequests;
  server.record();
  const actionRun = await inPage(page, 'actions', { iterations: ACTION_ITERATIONS, warmup: WARMUP.actions, accountId: setup.accountId });
  const layers = server.recorded();
  const apiActions = server.apiRequests - apiBeforeActions;
  const floor = await inPage(page, 'fetchFloor', { iterations: ACTION_ITERATIONS, warmup: WARMUP.actions });

  // Last, on a fresh page: the load loop opens a new IndexedDB connection per sample and thousands of
  // records come and go, which left the browser busy (p95s of later phases grew 10×) when it ran first.
  await freshPage(page);
  log(`key store: generate + store, load × ${ITERATIONS}`);
  const keyRun = await inPage(page, 'keyStore', { iterations: ITERATIONS, warmup: WARMUP.keyStore });
  const actionCount = WARMUP.actions + ACTION_ITERATIONS;

  const stamp = Object.fromEntries(
    stampRuns.map((run) => {
      const raw = summarize(run.rawSign);
      const st = summarize(run.stamp);
      return [
        String(run.payloadBytes),
        {
          payloadBytes: run.payloadBytes,
          iterations: run.iterations,
          warmup: run.warmup,
          rawSign: r(run.rawSign),
          stamp: r(run.stamp),
          stampViaStore: r(run.stampViaStore),
          encodeAndSign: r(run.encodeAndSign),
          ratio: { median: round(summarize(run.ratio).median, 3), p95: round(summarize(run.ratio).p95, 3), ofMedians: round(st.median / raw.median, 3) },
          ratioToEncodeAndSign: { median: round(summarize(run.ratioToEncodeAndSign).median, 3), p95: round(summarize(run.ratioToEncodeAndSign).p95, 3) },
          storeStampsAfterFirst: run.storeStampsAfterFirst,
          storeReadsAfterFirst: run.storeReadsAfterFirst,
          storeReadsPerStampAfterFirst: run.storeReadsAfterFirst / run.storeStampsAfterFirst,
          storeCacheHitsAfterFirst: run.storeCacheHitsAfterFirst,
        },
      ];
    }),
  );
  const at2k = stamp['2048']!;
  const storeReadsAfterFirstAction = actionRun.storeReadsPerAction.slice(1).reduce((s, x) => s + x, 0);
  const requestsPerAction = summarize(actionRun.requestsPerAction);
  const results = {
    date: new Date().toISOString(),
    durationSeconds: round((performance.now() - started) / 1000, 1),
    units: 'milliseconds (ratios unitless); median and p95 are nearest-rank',
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      logicalCores: cpus().length,
      memoryGiB: round(totalmem() / 2 ** 30, 1),
      os: `${osType()} ${release()}`,
      node: process.version,
      // Other work on the machine skews every figure (this one has 2 cores): the 1-minute load average.
      loadAverage1m: { atStart: round(loadAtStart[0] ?? 0, 2), atEnd: round(loadavg()[0] ?? 0, 2) },
    },
    browser: {
      product: version.product,
      binary: chromiumVersion(launch.executablePath),
      userAgent: version.userAgent,
      executablePath: launch.executablePath ?? 'playwright-managed',
      headless: true,
      profile: 'persistent, on disk (IndexedDB on disk)',
      crossOriginIsolated: info.crossOriginIsolated,
      timerStepMicroseconds: round(info.timerStepMs * 1000, 2),
    },
    stampOverRawSignRatio: at2k.ratio.median,
    goals: [
      { goal: 'stamp ≤ 1.3 × raw sign at 2 KB (median of per-iteration ratios)', target: RATIO_GOAL, measured: at2k.ratio.median, met: at2k.ratio.median <= RATIO_GOAL },
      {
        goal: '0 IndexedDB reads per stamp after the first',
        target: 0,
        measured: stampRuns.reduce((n, run) => n + run.storeReadsAfterFirst, 0) + storeReadsAfterFirstAction,
        met: stampRuns.every((run) => run.storeReadsAfterFirst === 0) && storeReadsAfterFirstAction === 0,
      },
      {
        goal: 'protocol-minimum requests per signed action (2)',
        target: 2,
        measured: requestsPerAction.max,
        met: requestsPerAction.min === 2 && requestsPerAction.max === 2 && apiActions === 2 * actionCount,
      },
    ],
    stamp,
    keyStore: {
      iterations: keyRun.iterations,
      warmup: keyRun.warmup,
      backend: keyRun.backend,
      generateOnly: r(keyRun.generateOnly),
      generateAndStore: r(keyRun.generateAndStore),
      loadStoredKey: r(keyRun.loadStoredKey),
      loadStoredKeyColdStore: r(keyRun.loadStoredKeyColdStore),
    },
    bundles: {
      iterations: bundleRun.iterations,
      warmup: bundleRun.warmup,
      otpSeal: r(bundleRun.otpSeal),
      openSealedSessionKey: r(bundleRun.openSealedSessionKey),
      openExportBundle: r(bundleRun.openExportBundle),
    },
    signedAction: {
      iterations: actionRun.iterations,
      warmup: actionRun.warmup,
      path: 'browser fetch → /api (proxy, Node) → sandbox (Node, same process), loopback, HTTP/1.1 keep-alive',
      latency: r(actionRun.latency),
      perRequest: {
        note: 'each request as measured by the browser transport (fetch → body read), the proxy (in → out) and the sandbox (request → reply); warm-up included for proxy and sandbox',
        browser: r(actionRun.requestMs),
        proxy: r(layers.proxyMs),
        sandbox: r(layers.sandboxMs),
      },
      outsideHttpPerAction: r(actionRun.outsideHttpMs),
      loopbackFetchFloor: r(floor),
      requestsPerAction: { min: requestsPerAction.min, max: requestsPerAction.max, median: requestsPerAction.median },
      requestsAtProxy: apiActions,
      actions: actionCount,
      storeReadsFirstAction: actionRun.storeReadsPerAction[0] ?? 0,
      storeReadsAfterFirstAction,
      statuses: actionRun.statuses,
      login: { ms: round(loginRun.ms), requests: loginRun.requests, requestsAtProxy: apiBeforeActions - apiBeforeLogin },
    },
  };

  log(`stamp/raw at 2 KB: median ratio ${at2k.ratio.median} (raw ${at2k.rawSign.median} ms, stamp ${at2k.stamp.median} ms)`);
  for (const g of results.goals) log(`goal ${g.met ? 'met   ' : 'MISSED'} ${g.goal}: ${g.measured}`);
  if (quick) {
    console.log(JSON.stringify(results, null, 2));
    log('--quick: nothing written');
  } else {
    writeFileSync(join(root, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');
    // Fresh bench/size.json for the size table (the size script exits 1 over a ceiling: still report it).
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'size.mjs')], { cwd: root, stdio: 'ignore' });
    } catch {
      log('npm run size reported a failure: see the size table');
    }
    writeBenchmarksMd(join(root, 'BENCHMARKS.md'), results);
    log('wrote bench/results.json and BENCHMARKS.md');
  }
} finally {
  await context?.close();
  await server.close();
  rmSync(profileDir, { recursive: true, force: true });
}
