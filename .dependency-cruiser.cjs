/**
 * The import rules `npm run lint` checks (dependency-cruiser): no cycles anywhere (server, console
 * and packages), and no import up the server's layers, which apps/server/README.md draws:
 * base (lib, config, db, errors) < providers < domain < middleware < relay < http, with app.ts,
 * main.ts and the composition root on top. Type-only imports count: a cycle of types is still a
 * cycle for a reader. Tests and test kits may reach across.
 */
const SERVER = '^apps/server/src/';

/** The server's layers, lowest first; a module may import its own layer and the ones below. */
const LAYERS = [
  { name: 'base', path: `${SERVER}(lib|config|db|errors)/` },
  { name: 'providers', path: `${SERVER}providers/` },
  { name: 'domain', path: `${SERVER}domain/` },
  { name: 'middleware', path: `${SERVER}middleware/` },
  { name: 'relay', path: `${SERVER}relay/` },
  { name: 'http', path: `${SERVER}http/` },
];

const upward = LAYERS.flatMap((layer, index) =>
  LAYERS.slice(index + 1).map((higher) => ({
    name: `no-${layer.name}-to-${higher.name}`,
    comment: `${layer.name} sits below ${higher.name}: it may not import from it`,
    severity: 'error',
    from: { path: layer.path, pathNot: '\\.test\\.tsx?$|/testing/|/test-support/' },
    to: { path: higher.path },
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: split the shared part out, or pass the dependency in',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'no-root-files-below',
      comment: 'app.ts, main.ts and the composition root are the top: nothing in a layer imports them',
      severity: 'error',
      from: { path: `${SERVER}(lib|config|db|errors|domain|providers|relay|http|middleware)/`, pathNot: '\\.test\\.tsx?$|/testing/|/test-support/' },
      to: { path: `${SERVER}(app|main|composition-root)\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
