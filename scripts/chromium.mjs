// Where Chromium is found, and the flags it runs with, for every tool in this repo (Vitest browser
// mode, Playwright end-to-end tests, benchmarks, screenshots). Order: CHROMIUM_PATH, then the
// system /usr/bin/chromium, then a Playwright-managed browser (undefined = let Playwright choose).
import { existsSync } from 'node:fs';

export function chromiumPath() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return undefined;
}

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function launchOptions() {
  const executablePath = chromiumPath();
  return executablePath ? { executablePath, args: chromiumArgs } : { args: chromiumArgs };
}

/**
 * Playwright's `--disable-features` list (playwright-core 1.65, chromiumSwitches.ts) less
 * ThirdPartyStoragePartitioning, which it disables (playwright issue 32230).
 */
const PLAYWRIGHT_DISABLED_FEATURES_BUT_PARTITIONING = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
];

/**
 * Chromium as users have it for the frame tests: third-party storage partitioning ON. Naming it in
 * `--enable-features` alone does not win over Playwright's `--disable-features` list; Chromium
 * keeps the last value of a repeated switch, so the list is given again after Playwright's, without
 * it (measured: the canary e2e/frame/00-partitioning.spec.ts fails with `--enable-features` alone
 * and passes with this). That canary fails whenever partitioning is off.
 */
export function partitionedLaunchOptions() {
  const base = launchOptions();
  return {
    ...base,
    args: [...base.args, `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES_BUT_PARTITIONING.join(',')}`, '--enable-features=ThirdPartyStoragePartitioning'],
  };
}
