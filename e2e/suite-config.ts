/**
 * What the Playwright configs of this repository share (playwright.*.config.ts): one test at a time
 * (the tests of a stack share its sandbox clock, and several move it), no retries (a test that needs
 * one is a bug), the list reporter, `.only` refused on CI; and each browser's settings: headless,
 * Desktop Chrome's viewport and agent, a trace (and a picture, unless the suite takes its own) kept
 * for each failure, the suite's waits for an action and a page load.
 */
import { devices, type PlaywrightTestConfig } from '@playwright/test';

export const oneAtATime = {
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
} as const satisfies PlaywrightTestConfig;

type LaunchOptions = NonNullable<NonNullable<PlaywrightTestConfig['use']>['launchOptions']>;

export function browserUse(launchOptions: LaunchOptions, waits: { actionMs: number; navigationMs: number }, pictures: 'on failure' | 'none' = 'on failure') {
  return {
    ...devices['Desktop Chrome'],
    headless: true,
    launchOptions,
    trace: 'retain-on-failure' as const,
    ...(pictures === 'on failure' ? { screenshot: 'only-on-failure' as const } : {}),
    actionTimeout: waits.actionMs,
    navigationTimeout: waits.navigationMs,
  };
}
