/** The README's route table, generated from the route table (routes.ts); test/proxy/routes-readme.test.ts checks the README holds it. */
import { compileRules, DEFAULT_ALLOW, type AllowRule, type CompiledScope } from './routes.js';

function scopeText(scope: CompiledScope): string {
  switch (scope.kind) {
    case 'path':
      return `path \`{${scope.name}}\``;
    case 'customerFilter':
      return `query \`${scope.name}\` = the user's customer (set when absent)`;
    case 'accountFilter':
      return `query ${scope.names.map((n) => `\`${n}\``).join(' or ')} = one of the user's accounts`;
    case 'body':
      return `body ${scope.paths.map((p) => `\`${p}\``).join(' or ')}`;
    case 'none':
      return 'none';
  }
}

/** The README's route table, generated from the rules (default: {@link DEFAULT_ALLOW}). */
export function routesMarkdown(rules: readonly AllowRule[] = DEFAULT_ALLOW): string {
  const rows = compileRules(rules).map((r) => {
    const query = r.query.size === 0 ? '—' : [...r.query].map(([n, k]) => (k === null ? `\`${n}\`` : `\`${n}\` (${k})`)).join(', ');
    const body = r.body.length === 0 ? '—' : r.body.map(([p, k]) => `\`${p.join('.')}\` (${k})`).join(', ');
    const answer = r.answer === undefined ? '—' : `${r.list ? 'each `data[]` ' : ''}${r.answer}`;
    return `| \`${r.method} ${r.pattern}\` | ${scopeText(r.scope)} | ${query} | ${body} | ${answer} |`;
  });
  return ['| route | scoped by | query forwarded (id kind) | body ids | answer checked as |', '|---|---|---|---|---|', ...rows].join('\n');
}
