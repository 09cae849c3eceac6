/**
 * The checks every prompt of 06-prompts.spec.ts passes, in every engine: axe-core in the prompt's
 * own document (0 serious or critical violations), and its picture compared with the kept one.
 *
 * Pictures: docs/prompts/<engine>/<name>.png (playwright.frame.config.ts `snapshotPathTemplate`),
 * compared by Playwright's own comparator (`toMatchSnapshot`) with {@link PICTURE_TOLERANCE}. A
 * missing picture is written and the test notes it; to take them again after a deliberate change
 * of the prompts' look: `nice -n 5 npx playwright test -c playwright.frame.config.ts
 * portable/06-prompts --update-snapshots` (then look at them and commit them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from '@playwright/test';
import type { Scope } from '../../drivers/driver.js';

/**
 * Per pixel, Playwright's colour distance (0–1) under which a pixel counts as the same (0.2, its
 * default: font antialiasing stays under it); of the whole picture, how many differing pixels it
 * forgives (40: a few glyph edges). A count, not a share: one short value moved 12 px ("→ On" of
 * update-account) differs in about 270 pixels, 0.36 % of the picture, under a 0.5 % share but far
 * over 40. The spec moves that line on every run, in every engine, and sees the comparison fail.
 */
export const PICTURE_TOLERANCE = { threshold: 0.2, maxDiffPixels: 40 } as const;

/** Compares `png` with the kept picture `name` (written when missing, which the test notes). */
export function keptPicture(png: Buffer, name: string): void {
  const path = test.info().snapshotPath(name);
  const missing = !existsSync(path);
  expect(png).toMatchSnapshot(name, PICTURE_TOLERANCE);
  if (missing) test.info().annotations.push({ type: 'picture written', description: `${path}: no kept picture; this run's was written. Look at it and commit it.` });
}

/** `png` differs from the kept picture `name` beyond the tolerance (the comparison's own test). */
export function differsFromKept(png: Buffer, name: string): void {
  expect(png).not.toMatchSnapshot(name, PICTURE_TOLERANCE);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

/**
 * axe-core run in `scope`'s document (the signer frame or its approval window, whatever the
 * engine): its source goes in as the body of the evaluated function (a driver passes a function's
 * source, never a script tag the page's CSP would refuse). Resolves to the serious and critical
 * violations.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- axe-core's own source, read from node_modules
const runAxe = new Function(
  'options',
  `${AXE_SOURCE}
;return window.axe.run(document, options).then((r) => r.violations
  .filter((v) => v.impact === 'serious' || v.impact === 'critical')
  .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) })));`,
) as (options: unknown) => Promise<AxeViolation[]>;

export function seriousViolations(scope: Scope): Promise<AxeViolation[]> {
  return scope.evaluate(runAxe, { resultTypes: ['violations'] });
}
