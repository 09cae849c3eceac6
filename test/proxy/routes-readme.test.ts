/**
 * The README's route table is made from the route table (src/proxy/routes.ts): no second copy.
 * `UPDATE_README=1 npx vitest run --project node test/proxy/routes-readme.test.ts` rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOW } from '../../src/proxy/index.js';
import { compileRules } from '../../src/proxy/routes.js';
import { routesMarkdown } from '../../src/proxy/routes-doc.js';

const README = fileURLToPath(new URL('../../src/proxy/README.md', import.meta.url));
const BEGIN = /<!-- routes:begin[^>]*-->\n/;
const END = '<!-- routes:end -->';

describe('the route table', () => {
  it('src/proxy/README.md holds the table generated from DEFAULT_ALLOW', () => {
    const text = readFileSync(README, 'utf8');
    const begin = BEGIN.exec(text);
    const end = text.indexOf(END);
    expect(begin, 'the routes:begin marker').not.toBeNull();
    const start = (begin?.index ?? 0) + (begin?.[0].length ?? 0);
    const wanted = routesMarkdown() + '\n';
    if (process.env.UPDATE_README === '1') writeFileSync(README, text.slice(0, start) + wanted + text.slice(end));
    else expect(text.slice(start, end), 'run with UPDATE_README=1 to rewrite it').toBe(wanted);
  });

  it('every default route says what scopes it; every list route is scoped by a filter the service honours', () => {
    for (const rule of compileRules(DEFAULT_ALLOW)) {
      expect(rule.scope.kind, `${rule.method} ${rule.pattern}`).not.toBe('none');
      if (rule.list) expect(['customerFilter', 'accountFilter'], `${rule.method} ${rule.pattern}`).toContain(rule.scope.kind);
      if (rule.method === 'GET' && !rule.pattern.includes('{')) expect(rule.list, `${rule.method} ${rule.pattern} is a list`).toBe(true);
    }
  });

  it('rejects a scope that names nothing the rule declares', () => {
    expect(() => compileRules([{ method: 'GET', pattern: '/x', scope: { customerFilter: 'customerId' } }])).toThrow(/customerFilter/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', query: { accountId: 'accountId' }, scope: { accountFilter: ['customerId'] } }])).toThrow(/accountFilter/);
    expect(() => compileRules([{ method: 'POST', pattern: '/x', scope: { body: ['accountId'] } }])).toThrow(/scope.body/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x/{id}', scope: { path: 'id' } }])).toThrow(/scope.path/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', query: { 'bad name': null } }])).toThrow(/query/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', body: { accountId: 'nope' as never } }])).toThrow(/body/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', answer: 'nope' as never }])).toThrow(/answer/);
    expect(compileRules([{ method: 'POST', pattern: '/sandbox/internal-accounts/{accountId}/fund' }])[0]?.scope).toEqual({ kind: 'path', name: 'accountId' });
    expect(compileRules([{ method: 'GET', pattern: '/health' }])[0]?.scope).toEqual({ kind: 'none' });
  });
});
