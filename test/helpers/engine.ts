/**
 * Which engine a browser test runs in (Vitest's `browser (chromium|firefox|webkit)` projects), and
 * the one way a test steps aside in an engine that cannot do what it checks: skipped with the reason,
 * which the report prints beside the test. README § "Browser engines" lists every such case.
 */
import { server } from 'vitest/browser';
import type { TestContext } from 'vitest';

export type Engine = 'chromium' | 'firefox' | 'webkit';

/** The engine of this run (from Vitest's browser instance name). */
export const engine = server.browser as Engine;

/** Skips the running test when it runs in one of `engines`, printing `reason`. */
export function unsupportedIn(context: TestContext, engines: readonly Engine[], reason: string): void {
  context.skip(engines.includes(engine), `not in ${engine}: ${reason}`);
}
