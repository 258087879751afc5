// The house's import rules, checked by `npm run lint` (docs/architecture.md):
// - the thread boundary: the main thread never loads the shard workers' code or the decision
//   core (only its model), and the worker side never loads the main thread's;
// - the layers: every module sits in one layer and imports only from its own layer or below.
/** Bottom to top, each pattern exclusive. A module imports only from its own layer or a lower one. */
const LAYERS = [
  ['foundation', '^src/(domain|errors|validation)/'],
  ['infrastructure', '^src/(config|storage|secrets)/|^src/observability/(?!metrics-routes[.]ts$)'],
  ['decision model', '^src/decision/model/'],
  [
    'decision core and records',
    '^src/decision/(?!model/)|^src/receipts/(?!(keys|routes)[.]ts$)|^src/audit/(?!security-log[.]ts$)|^src/events/(envelope|outbox|catalog)[.]ts$',
  ],
  ['shard worker', '^src/shard/'],
  [
    'edge and services',
    '^src/(engine|auth|http|cluster)/|^src/events/(?!(envelope|outbox|catalog|service)[.]ts$)|^src/(receipts/keys|audit/security-log)[.]ts$',
  ],
  [
    'features',
    '^src/(runtime|onboarding|admin|webhooks|mcp)/|^src/(receipts/routes|observability/metrics-routes|app/services|events/service)[.]ts$',
  ],
  ['composition root', '^src/app/(?!services[.]ts$)|^src/main[.]ts$'],
];

const layerRules = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `layer-${i}-imports-no-higher-layer`,
  comment: `"${name}" imports only from its own layer or below (LAYERS in .dependency-cruiser.cjs).`,
  severity: 'error',
  from: { path },
  to: {
    path: LAYERS.slice(i + 1)
      .map(([, p]) => `(${p})`)
      .join('|'),
  },
}));

const MAIN_THREAD = '^src/';
const WORKER_SIDE = '^src/(shard|decision)/';
// The range worker thread (backtests, shadow reports) replays decisions with the core.
const RANGE_WORKER = '^src/runtime/range-(worker|reports)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'main-thread-loads-no-worker-code',
      comment:
        'The main thread loads no shard-worker module (embedded mode loads the shard on demand, by a dynamic import).',
      severity: 'error',
      from: { path: MAIN_THREAD, pathNot: `${WORKER_SIDE}|${RANGE_WORKER}` },
      to: { path: '^src/shard/', dependencyTypesNot: ['type-only', 'dynamic-import'] },
    },
    {
      name: 'main-thread-loads-only-the-decision-model',
      comment: 'The main thread may load src/decision/model/, never the decision core itself.',
      severity: 'error',
      from: { path: MAIN_THREAD, pathNot: `${WORKER_SIDE}|${RANGE_WORKER}` },
      to: {
        path: '^src/decision/',
        pathNot: '^src/decision/model/',
        dependencyTypesNot: ['type-only', 'dynamic-import'],
      },
    },
    {
      name: 'worker-side-loads-no-main-thread-code',
      comment: 'Shard workers and the decision core load nothing of the edge, the routes or the cluster.',
      severity: 'error',
      from: { path: WORKER_SIDE },
      to: {
        path: '^src/(app|http|runtime|admin|onboarding|webhooks|cluster|engine|auth)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'decision-core-is-not-the-worker',
      comment: 'The decision core knows nothing of actors, commits or threads.',
      severity: 'error',
      from: { path: '^src/decision/' },
      to: { path: '^src/shard/' },
    },
    {
      name: 'decision-model-is-a-leaf',
      comment: 'The model the main thread may load imports nothing of the core.',
      severity: 'error',
      from: { path: '^src/decision/model/' },
      to: { path: '^src/decision/', pathNot: '^src/decision/model/' },
    },
    {
      name: 'every-module-in-a-layer',
      comment: 'A module outside every layer of LAYERS has no place in the order: give it one.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: LAYERS.map(([, p]) => `(${p})`).join('|'),
      },
      to: {},
    },
    {
      name: 'mcp-speaks-only-http',
      comment:
        "The agent's MCP server (src/mcp/) is a client of the service: it reaches it over HTTP through " +
        'packages/client and imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/', pathNot: '^src/mcp/' },
    },
    {
      name: 'bench-imports-only-public-faces',
      comment:
        'The bench suite (load, quality, scale-out, reports) uses the service as its users do: the entry, the ' +
        "domain's values, the decision model, the decision core's face and the database target. The micro " +
        'benchmarks (bench/micro.ts, tokens.ts, ip-ranges.ts) measure single modules of the hot path by name.',
      severity: 'error',
      from: { path: '^bench/', pathNot: '^bench/(micro|tokens|ip-ranges)[.]ts$' },
      to: {
        path: '^src/',
        pathNot: `^src/(main[.]ts|domain/|decision/model/|decision/core[.]ts|storage/db[.]ts)`,
      },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/validation/generated/' },
  },
};
