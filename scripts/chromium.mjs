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
