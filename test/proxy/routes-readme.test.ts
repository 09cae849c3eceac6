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
    expect(() => compileRules([{ method: 'GET', pattern: '/x', scope: 'none', query: { 'bad name': null } }])).toThrow(/query/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', scope: 'none', body: { accountId: 'nope' as never } }])).toThrow(/body/);
    expect(() => compileRules([{ method: 'GET', pattern: '/x', scope: 'none', answer: 'nope' as never }])).toThrow(/answer/);
    expect(compileRules([{ method: 'POST', pattern: '/sandbox/internal-accounts/{accountId}/fund' }])[0]?.scope).toEqual({ kind: 'path', name: 'accountId' });
    // S14: a route that names no id and says no scope is refused, naming it; scope: 'none' opens it.
    expect(() => compileRules([{ method: 'GET', pattern: '/health' }])).toThrow("allow[0].scope must be given for GET /health: it has no placeholder named after an id kind");
    expect(compileRules([{ method: 'GET', pattern: '/health', scope: 'none' }])[0]?.scope).toEqual({ kind: 'none' });
  });

  it.each([
    [{ method: 'GET', pattern: '/x', scope: 42 }, "allow[0].scope must be {path}, {customerFilter}, {accountFilter}, {body} or 'none'"],
    [{ method: 'GET', pattern: '/x', scope: null }, "allow[0].scope must be {path}, {customerFilter}, {accountFilter}, {body} or 'none'"],
    [{ method: 'GET', pattern: '/x', scope: {} }, "allow[0].scope must be {path}, {customerFilter}, {accountFilter}, {body} or 'none'"],
    [{ method: 'GET', pattern: '/x/{id}', scope: { path: 'id' } }, 'allow[0].scope.path must be a placeholder of the pattern named after an id kind'],
    [{ method: 'GET', pattern: '/x', scope: { path: 'accountId' } }, 'allow[0].scope.path must be a placeholder of the pattern named after an id kind'],
    [{ method: 'GET', pattern: '/x', query: { customerId: null }, scope: { customerFilter: 'customerId' } }, 'allow[0].scope.customerFilter must be a query parameter the rule declares as customerId'],
    [{ method: 'GET', pattern: '/x', query: { accountId: 'accountId' }, scope: { accountFilter: [] } }, 'allow[0].scope.accountFilter must be query parameters the rule declares as accountId or fundingSourceId'],
    [{ method: 'GET', pattern: '/x', query: { accountId: 'accountId' }, scope: { accountFilter: 'accountId' } }, 'allow[0].scope.accountFilter must be query parameters the rule declares as accountId or fundingSourceId'],
    [{ method: 'POST', pattern: '/x', body: { a: 'accountId' }, scope: { body: [] } }, 'allow[0].scope.body must be body fields the rule declares'],
    [{ method: 'POST', pattern: '/x', body: { a: 'accountId' }, scope: { body: 'a' } }, 'allow[0].scope.body must be body fields the rule declares'],
    [{ method: 'GET', pattern: '/x', query: { x: 'nope' } }, 'allow[0].query must be parameter names mapped to an id kind or null'],
    [{ method: 'GET', pattern: '/x', query: { ['x'.repeat(65)]: null } }, 'allow[0].query must be parameter names mapped to an id kind or null'],
    [{ method: 'POST', pattern: '/x', body: { 'a..b': 'accountId' } }, 'allow[0].body must be dotted field paths mapped to an id kind'],
    [{ method: 'POST', pattern: '/x', body: { 'a.': 'accountId' } }, 'allow[0].body must be dotted field paths mapped to an id kind'],
    [{ method: 'GET', pattern: '/x', answer: 'cards' }, 'allow[0].answer must be one of customer, account, credential, session, delegatedKey, quote, card, transaction'],
  ])('rule %j is refused: %s', (rule, message) => {
    expect(() => compileRules([rule as never])).toThrow(message);
  });

  it('accepts what the refusals above do not: each scope form, fundingSourceId as an account filter, dotted body paths', () => {
    const [a, b, c, d, e] = compileRules([
      { method: 'GET', pattern: '/x', scope: 'none' },
      { method: 'GET', pattern: '/x', query: { f: 'fundingSourceId', a: 'accountId', limit: null }, scope: { accountFilter: ['f', 'a'] } },
      { method: 'POST', pattern: '/x', body: { 'source.accountId': 'accountId' }, scope: { body: ['source.accountId'] }, answer: 'quote', list: false },
      { method: 'GET', pattern: '/x', query: { c: 'customerId' }, scope: { customerFilter: 'c' }, answer: 'transaction', list: true },
      { method: 'GET', pattern: '/x/{cardId}/{accountId}', scope: { path: 'accountId' } },
    ]);
    expect(a?.scope).toEqual({ kind: 'none' });
    expect(b?.scope).toEqual({ kind: 'accountFilter', names: ['f', 'a'] });
    expect([...(b?.query ?? [])]).toEqual([['f', 'fundingSourceId'], ['a', 'accountId'], ['limit', null]]);
    expect([c?.scope, c?.body, c?.answer, c?.list]).toEqual([{ kind: 'body', paths: ['source.accountId'] }, [[['source', 'accountId'], 'accountId']], 'quote', false]);
    expect([d?.scope, d?.list]).toEqual([{ kind: 'customerFilter', name: 'c' }, true]);
    expect(e?.scope).toEqual({ kind: 'path', name: 'accountId' });
    expect(compileRules([{ method: 'GET', pattern: '/x/{cardId}/{accountId}' }])[0]?.scope).toEqual({ kind: 'path', name: 'cardId' });
  });

  it('DEFAULT_ALLOW is frozen to the leaves (query, body, scope lists)', () => {
    for (const rule of DEFAULT_ALLOW) {
      expect(Object.isFrozen(rule)).toBe(true);
      if (rule.query !== undefined) expect(Object.isFrozen(rule.query)).toBe(true);
      if (rule.body !== undefined) expect(Object.isFrozen(rule.body)).toBe(true);
      if (typeof rule.scope === 'object') {
        expect(Object.isFrozen(rule.scope)).toBe(true);
        for (const value of Object.values(rule.scope)) if (Array.isArray(value)) expect(Object.isFrozen(value)).toBe(true);
      }
    }
  });
});

