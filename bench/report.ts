/** Writes the generated block of BENCHMARKS.md (between the markers) from a bench run and bench/size.json. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Summary } from './stats.js';

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

interface StampRow {
  payloadBytes: number;
  rawSign: Summary;
  stamp: Summary;
  stampViaStore: Summary;
  encodeAndSign: Summary;
  ratio: { median: number; p95: number; ofMedians: number };
  ratioToEncodeAndSign: { median: number; p95: number };
  storeReadsAfterFirst: number;
  storeStampsAfterFirst: number;
}

/** The parts of bench/results.json this report reads. */
export interface ReportInput {
  date: string;
  durationSeconds: number;
  machine: { cpu: string; logicalCores: number; memoryGiB: number; os: string; node: string; loadAverage1m: { atStart: number; atEnd: number } };
  browser: { product: string; binary: string | undefined; headless: boolean; crossOriginIsolated: boolean; timerStepMicroseconds: number };
  stampOverRawSignRatio: number;
  goals: Array<{ goal: string; target: number; measured: number; met: boolean }>;
  stamp: Record<string, StampRow>;
  keyStore: { iterations: number; generateOnly: Summary; generateAndStore: Summary; loadStoredKey: Summary; loadStoredKeyColdStore: Summary };
  bundles: { iterations: number; otpSeal: Summary; openSealedSessionKey: Summary; openExportBundle: Summary };
  signedAction: {
    iterations: number;
    latency: Summary;
    perRequest: { browser: Summary; proxy: Summary; sandbox: Summary };
    outsideHttpPerAction: Summary;
    loopbackFetchFloor: Summary;
    requestsPerAction: { min: number; max: number };
    requestsAtProxy: number;
    actions: number;
    storeReadsFirstAction: number;
    storeReadsAfterFirstAction: number;
    login: { ms: number; requests: number };
  };
}

interface SizePart { minBytes: number; gzipBytes: number }
interface SizeRow extends SizePart {
  label: string;
  budgetGzipBytes: number | null;
  hardCeilingGzipBytes: number | null;
  status: string;
  /** Chunks loaded by dynamic import (when the size script splits). */
  lazy?: Array<SizePart & { name: string }>;
  total?: SizePart;
}
/** One consumer build of bench/size.json (scripts/size-consumers.mjs). */
interface ConsumerSize {
  startup: { chunks: number; gzipBytes: number };
  lazy: { chunks: number; gzipBytes: number };
  total: { chunks: number; gzipBytes: number };
}
/** One scenario of bench/size.json, built by every bundler (scripts/size-scenarios.mjs). */
interface ConsumerScenario {
  name: string;
  label: string;
  skipped?: string;
  builds: Record<string, ConsumerSize>;
  budgetGzipBytes: Record<string, number>;
}

const ms = (x: number): string => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));
const kb = (n: number): string => (n / 1024).toFixed(2);
const size = (bytes: number): string => (bytes >= 1024 ? `${bytes / 1024} KB` : `${bytes} B`);

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function row(name: string, s: Summary, note = ''): string[] {
  return [name, String(s.n), ms(s.median), ms(s.p95), note];
}

function sizeTable(sizeJson: string): string {
  if (!existsSync(sizeJson)) return '_bench/size.json not found: run `npm run size`._';
  const { bundles, consumers } = JSON.parse(readFileSync(sizeJson, 'utf8')) as {
    bundles: SizeRow[];
    consumers?: { bundlers: Array<{ id: string; label: string }>; scenarios: ConsumerScenario[] };
  };
  const built = consumers
    ? table(
        ['consumer build of the packed package', 'startup gz KB (chunks)', 'lazy gz KB (chunks)', 'total gz KB', 'budget gz KB'],
        consumers.scenarios.flatMap((s) =>
          s.skipped
            ? [[`${s.label}: skipped (${s.skipped})`, '', '', '', '']]
            : consumers.bundlers.map(({ id, label }) => {
                const c = s.builds[id]!;
                const budget = s.budgetGzipBytes[id];
                return [`${s.label}, ${label}`, `${kb(c.startup.gzipBytes)} (${c.startup.chunks})`, `${kb(c.lazy.gzipBytes)} (${c.lazy.chunks})`, kb(c.total.gzipBytes), budget === undefined ? '—' : kb(budget)];
              }),
        ),
      ) + '\n\nesbuild over the source (a report):\n\n'
    : '';
  return built + table(
    ['bundle', 'min KB', 'gz KB', 'goal gz KB', 'status'],
    bundles.flatMap((b) => [
      [
        b.lazy?.length ? `${b.label}, startup` : b.label,
        kb(b.minBytes),
        kb(b.gzipBytes),
        b.budgetGzipBytes === null ? '—' : kb(b.budgetGzipBytes) + (b.hardCeilingGzipBytes !== null && b.hardCeilingGzipBytes !== b.budgetGzipBytes ? ` (ceiling ${kb(b.hardCeilingGzipBytes)})` : ''),
        b.status,
      ],
      ...(b.lazy ?? []).map((l) => [`· lazy chunk ${l.name} (on first use)`, kb(l.minBytes), kb(l.gzipBytes), '', '']),
      ...(b.lazy?.length && b.total ? [[`· every chunk of ${b.label}`, kb(b.total.minBytes), kb(b.total.gzipBytes), '', '']] : []),
    ]),
  );
}

export function renderResults(results: ReportInput, sizeJson: string): string {
  const m = results.machine;
  const b = results.browser;
  const stampRows = Object.values(results.stamp).flatMap((s) => [
    row(`raw \`crypto.subtle.sign\`, ${size(s.payloadBytes)}`, s.rawSign, 'bytes encoded beforehand'),
    row(`UTF-8 encode + raw sign, ${size(s.payloadBytes)}`, s.encodeAndSign, 'what signing the string by hand costs'),
    row(`\`stamp()\`, ${size(s.payloadBytes)}`, s.stamp, `ratio to raw: median ${s.ratio.median.toFixed(3)}, p95 ${s.ratio.p95.toFixed(3)}; to encode + sign: median ${s.ratioToEncodeAndSign.median.toFixed(3)}`),
    row(`\`stamp()\` + key store lookup, ${size(s.payloadBytes)}`, s.stampViaStore, `${s.storeReadsAfterFirst} IndexedDB reads in ${s.storeStampsAfterFirst} stamps after the first`),
  ]);
  const k = results.keyStore;
  const bu = results.bundles;
  const a = results.signedAction;
  const lines = [
    START,
    `_Generated by \`npm run bench\` on ${results.date.slice(0, 10)} (${results.date}); run time ${results.durationSeconds} s._`,
    '',
    `- Machine: ${m.cpu}, ${m.logicalCores} logical cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; 1-minute load average ${m.loadAverage1m.atStart} at start, ${m.loadAverage1m.atEnd} at end`,
    `- Browser: ${b.binary ?? b.product} (${b.product}), headless, persistent on-disk profile; cross-origin isolated: ${b.crossOriginIsolated} (timer step ${b.timerStepMicroseconds} µs)`,
    `- **stampOverRawSignRatio (median of per-iteration ratios at 2 KB): ${results.stampOverRawSignRatio.toFixed(3)}**`,
    '',
    '### Goals',
    '',
    table(['goal', 'target', 'measured', 'met'], results.goals.map((g) => [g.goal, String(g.target), String(g.measured), g.met ? 'yes' : '**no**'])),
    '',
    '### Timings (ms)',
    '',
    table(['operation', 'n', 'median', 'p95', 'note'], [
      ...stampRows,
      row('generate session key (no storage)', k.generateOnly),
      row('generate + store in IndexedDB (`store.generate`)', k.generateAndStore),
      row('load a stored key (new store instance, probe done, first `get`)', k.loadStoredKey),
      row('load a stored key, cold store (first-use probe + first `get`)', k.loadStoredKeyColdStore),
      row('OTP seal (`buildEncryptedOtpBundle`, target bundle verified)', bu.otpSeal),
      row('open sealed session key (legacy `openSealedSessionKey`, vector)', bu.openSealedSessionKey),
      row('open export envelope (`openExportBundle`, vector, verified)', bu.openExportBundle),
      row(
        'signed action end to end (`PATCH /internal-accounts/{id}`, browser → proxy → sandbox)',
        a.latency,
        `${a.iterations} iterations (not 1,000: each is 2 HTTP round trips and a server-side verify); ${a.requestsPerAction.min === a.requestsPerAction.max ? a.requestsPerAction.min : `${a.requestsPerAction.min}–${a.requestsPerAction.max}`} requests per action; ${a.requestsAtProxy} requests reached the proxy for ${a.actions} actions`,
      ),
    ]),
    '',
    `One signed action, per layer (ms, median / p95): each HTTP request as the browser saw it ${ms(a.perRequest.browser.median)} / ${ms(a.perRequest.browser.p95)}, inside the proxy ${ms(a.perRequest.proxy.median)} / ${ms(a.perRequest.proxy.p95)}, inside the sandbox ${ms(a.perRequest.sandbox.median)} / ${ms(a.perRequest.sandbox.p95)}; the library's own time outside HTTP (stamp, JSON, key lookup) ${ms(a.outsideHttpPerAction.median)} / ${ms(a.outsideHttpPerAction.p95)} per action. A plain \`fetch\` round trip from the page to the bench server (no proxy, no sandbox): ${ms(a.loopbackFetchFloor.median)} / ${ms(a.loopbackFetchFloor.p95)}.`,
    '',
    `Key store reads in the end-to-end run (store reopened after login, like a reload): first action ${a.storeReadsFirstAction}, all later actions ${a.storeReadsAfterFirstAction}. Login (challenge + two-leg verify): ${ms(a.login.ms)} ms, ${a.login.requests} requests.`,
    '',
    '### Bundle sizes (`npm run size`: the packed package in Vite and Next.js production builds; then esbuild minify, split at dynamic imports; gzip -9 per chunk; startup = entry + its static imports)',
    '',
    sizeTable(sizeJson),
    END,
  ];
  return lines.join('\n');
}

const SKELETON = `# Benchmarks\n\n${START}\n${END}\n`;

/** Replaces the generated block of BENCHMARKS.md (creating the file when absent); the rest is left as written. */
export function writeBenchmarksMd(path: string, results: ReportInput): void {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : SKELETON;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const block = renderResults(results, join(dirname(path), 'bench', 'size.json'));
  const next = start === -1 || end === -1 || end < start ? `${current.trimEnd()}\n\n${block}\n` : current.slice(0, start) + block + current.slice(end + END.length);
  writeFileSync(path, next);
}
