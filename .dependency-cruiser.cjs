// The layer rules of ../shared/docs/design.md, checked over src/ by `npm run deps` (scripts/deps.mjs,
// part of `npm test`). Type-only imports count: `tsPreCompilationDeps` keeps them in the graph.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

// The package entries (package.json "exports", dist/X.js → src/X.ts): no module of src/ imports one.
const pkg = JSON.parse(readFileSync(join(__dirname, 'package.json'), 'utf8'));
const entries = Object.values(pkg.exports)
  .filter((target) => typeof target === 'object')
  .map((target) => target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Imports never form a cycle, type-only imports included (design.md).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-entry-import',
      severity: 'error',
      comment: `No module imports a package entry (${entries.join(', ')}): an entry is what an app imports, never a way in for our own code. One exception: src/react/describe.ts loads src/error-codes.ts (a leaf: the descriptions) with import() on a hook's first error.`,
      from: { path: '^src/', pathNot: '^src/react/describe\\.ts$' },
      to: { path: `^(${entries.map(escape).join('|')})$` },
    },
    {
      name: 'crypto-imports-nothing-above',
      severity: 'error',
      comment: 'crypto/ is pure functions over bytes: it imports only itself and the one error type.',
      from: { path: '^src/crypto/' },
      to: { path: '^src/', pathNot: ['^src/crypto/', '^src/errors\\.ts$'] },
    },
    {
      name: 'keys-below-transport',
      severity: 'error',
      comment: 'keys/ (the key store) sits beside crypto/: it imports only crypto/ and the error type.',
      from: { path: '^src/keys/' },
      to: { path: '^src/', pathNot: ['^src/keys/', '^src/crypto/', '^src/errors\\.ts$'] },
    },
    {
      name: 'transport-knows-no-flows',
      severity: 'error',
      comment: 'transport/ never knows about flows, actions, sessions or the wallet above it.',
      from: { path: '^src/transport/' },
      to: { path: '^src/(flows|actions|session|wallet\\.ts|react|legacy\\.ts|enclave-bundles\\.ts)' },
    },
    {
      name: 'session-below-flows',
      severity: 'error',
      comment: 'session/ serves the flows and actions (and the wallet): it imports none of them.',
      from: { path: '^src/session/' },
      to: { path: '^src/(flows|actions|wallet\\.ts|react)' },
    },
    {
      name: 'wallet-is-the-top',
      severity: 'error',
      comment: 'wallet.ts wires the layers; only the entries and the bindings above it (react/, testing/) import it.',
      from: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/legacy\\.ts$', '^src/react/', '^src/testing/', '^src/signer/frame/main\\.ts$'] },
      to: { path: '^src/wallet\\.ts$' },
    },
    {
      name: 'sandbox-shares-only-crypto',
      severity: 'error',
      comment:
        'The sandbox shares only crypto/ (with the error type crypto/ itself throws) with the browser code: importing a flow or a session module would let a shared bug pass both sides. json-duplicate-key.ts is server code it shares with the proxy.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: ['^src/sandbox/', '^src/crypto/', '^src/errors\\.ts$', '^src/json-duplicate-key\\.ts$'] },
    },
    {
      name: 'browser-code-without-sandbox-or-proxy',
      severity: 'error',
      comment: 'The browser code never imports the sandbox or the proxy (server-only); testing/ (fixtures over the sandbox for tests) may.',
      from: { path: '^src/', pathNot: ['^src/sandbox/', '^src/proxy/', '^src/testing/'] },
      to: { path: '^src/(sandbox|proxy)/' },
    },
    {
      name: 'nothing-imports-react',
      severity: 'error',
      comment: 'react/ binds the session store; nothing below imports it.',
      from: { path: '^src/', pathNot: '^src/react/' },
      to: { path: '^src/react/' },
    },
    {
      name: 'frame-parent-holds-nothing',
      severity: 'error',
      comment:
        "signer/parent/ (the app's side of frame mode) runs no key, session, transport, flow or action code: it imports the protocol, the error type, the event emitter and types only (THREAT-MODEL.md; the frame-mode startup size).",
      from: { path: '^src/signer/parent/' },
      to: { path: '^src/', pathNot: ['^src/signer/parent/', '^src/signer/protocol\\.ts$', '^src/errors\\.ts$', '^src/session/emitter\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'signer-protocol-is-a-leaf',
      severity: 'error',
      comment: 'The protocol both sides bundle imports nothing.',
      from: { path: '^src/signer/protocol\\.ts$' },
      to: { path: '^src/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    moduleSystems: ['es6'],
  },
};
