/**
 * Which engine a browser test runs in (Vitest's `browser (chromium|firefox|webkit)` projects). A
 * test that an engine cannot run steps aside with `context.skip(engine === 'firefox', 'why')`: the
 * reason is printed at the end of the run (scripts/engines/engine-summary-reporter.ts).
 */
import { server } from 'vitest/browser';

export type Engine = 'chromium' | 'firefox' | 'webkit';

/** The engine of this run (from Vitest's browser instance name). */
export const engine = server.browser as Engine;
