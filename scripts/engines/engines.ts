/**
 * The three browser engines the browser tests and the core journeys run in, where each one's
 * programs are on this machine, and which engines a run uses.
 *
 * - chromium: Debian's /usr/bin/chromium, driven by Playwright (scripts/chromium.mjs).
 * - firefox: Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core (Playwright's own
 *   Firefox cannot be downloaded here, and its `moz-firefox` channel speaks a newer BiDi than ESR).
 * - webkit: WebKitGTK's MiniBrowser, driven by Debian's WebKitWebDriver (W3C WebDriver), in a
 *   private Xvfb display (MiniBrowser has no headless mode).
 *
 * `TEST_ENGINES=chromium,firefox` (comma-separated) narrows a run; the default is all three, and a
 * selected engine whose programs are missing fails the run with the command that installs them.
 */
import { existsSync } from 'node:fs';

export const ENGINES = ['chromium', 'firefox', 'webkit'] as const;
export type Engine = (typeof ENGINES)[number];

export const FIREFOX_PATH = '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER_PATH = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const XVFB_PATH = '/usr/bin/Xvfb';

/** The Debian packages each engine needs (`.ci/run` installs the missing ones). */
export const DEBIAN_PACKAGES: Record<Engine, readonly string[]> = {
  chromium: ['chromium'],
  firefox: ['firefox-esr'],
  webkit: ['webkit2gtk-driver', 'xvfb'],
};

/** The engines this run uses: `TEST_ENGINES` if set (unknown names are an error), else all three. */
export function selectedEngines(value: string | undefined = process.env.TEST_ENGINES): Engine[] {
  if (value === undefined || value.trim() === '') return [...ENGINES];
  const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !(ENGINES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`TEST_ENGINES: unknown engine ${unknown.join(', ')} (known: ${ENGINES.join(', ')})`);
  return ENGINES.filter((e) => names.includes(e));
}

/** Missing programs of an engine, as a message with the install command; undefined if all are there. */
export function missingPrograms(engine: Engine): string | undefined {
  // Chromium: scripts/chromium.mjs falls back to a Playwright-managed browser when there is no system one.
  const needed: Record<Engine, string[]> = { chromium: [], firefox: [FIREFOX_PATH], webkit: [WEBKIT_DRIVER_PATH, MINIBROWSER_PATH] };
  const missing = needed[engine].filter((p) => !existsSync(p));
  if (missing.length === 0) return undefined;
  return `${engine}: ${missing.join(', ')} not found; install with: apt-get install -y ${DEBIAN_PACKAGES[engine].join(' ')} (or leave it out with TEST_ENGINES)`;
}

/** Throws the install hint if an engine's programs are missing. */
export function assertInstalled(engine: Engine): void {
  const missing = missingPrograms(engine);
  if (missing !== undefined) throw new Error(missing);
}
