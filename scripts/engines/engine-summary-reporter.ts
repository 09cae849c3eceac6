/**
 * A Vitest reporter added beside the default one: at the end of a run, the test counts of each
 * project (so each browser engine: `browser (chromium)`, `browser (firefox)`, `browser (webkit)`)
 * and every test skipped with a reason (an engine that cannot do what the test checks).
 */
import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

type Counts = { passed: number; failed: number; skipped: number };

export class EngineSummaryReporter implements Reporter {
  private readonly counts = new Map<string, Counts>();
  private readonly reasons: string[] = [];

  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    if (result.state === 'pending') return;
    const name = test.project.name || 'default';
    const counts = this.counts.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
    counts[result.state] += 1;
    this.counts.set(name, counts);
    if (result.state === 'skipped' && result.note !== undefined) {
      const file = relative(test.project.config.root, test.module.moduleId);
      this.reasons.push(`  ${name} › ${file} › ${test.fullName}\n      ${result.note}`);
    }
  }

  onTestRunEnd(): void {
    if (this.counts.size === 0) return;
    const lines = ['', 'Tests by project:'];
    for (const [name, c] of [...this.counts].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`  ${name.padEnd(20)} ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
    }
    if (this.reasons.length > 0) lines.push('Skipped, with the reason:', ...this.reasons);
    console.log(lines.join('\n'));
  }
}
