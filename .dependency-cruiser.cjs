// The layers of src/, checked by `npm run lint` (dependency-cruiser): an import goes down this list, never up.
//
//   edge         main.ts, app.module.ts, app.factory.ts, openapi.ts, edge/   (what answers before Nest, and the assembly)
//   pages        site/, then dashboard/, then operator-console/
//   features     declarations/, then products/, then sandbox/ and exports/ (the operator's period and annual exports)
//   credentials  auth/
//   domain       reference/, then audit/, then accounts/
//   platform     common/, config/, database/, mail/, health/, rate-limit/, caller/ (who is calling), i18n/,
//                calendar/ (half-years, due dates, liability, the Paris clock)
//
// Within a module, SQL sits in its repositories (`*.repository.ts`; stores and listeners that hold a connection) and shared
// SQL helpers in database/: DTOs do not import repositories, services and controllers neither pg nor common/http/ (and
// ESLint refuses a `.query(` call in them).
//
// Build-time code (reference/build/, site/build-site.ts, scripts/) is kept out of the running service by ESLint
// (eslint.config.js). Specs may import what they test and test support.
const LAYERS = {
  platform: ['common', 'config', 'database', 'mail', 'health', 'rate-limit', 'caller', 'i18n', 'calendar'],
  domain: ['reference', 'audit', 'accounts'],
  credentials: ['auth'],
  features: ['declarations', 'products', 'sandbox', 'exports'],
  pages: ['site', 'dashboard', 'operator-console'],
};
const ORDER = ['platform', 'domain', 'credentials', 'features', 'pages'];
const folders = (names) => `^src/(${names.join('|')})/`;
const above = (layer) => ORDER.slice(ORDER.indexOf(layer) + 1).flatMap((name) => LAYERS[name]);
const EDGE = '^src/(edge/|main\\.ts$|app\\.module\\.ts$|app\\.factory\\.ts$|openapi\\.ts$)';
const NOT_SPECS = '\\.spec\\.ts$|/test-support\\.ts$';

/** Within a layer, where one folder may not import another (the lower one first). */
const WITHIN = [
  ['reference', ['audit', 'accounts']],
  ['audit', ['accounts']],
  ['site', ['dashboard', 'operator-console']],
  ['dashboard', ['operator-console']],
  ['declarations', ['products', 'sandbox', 'exports']],
  ['products', ['sandbox', 'exports']],
  ['sandbox', ['exports']],
  ['exports', ['sandbox']],
  ['config', ['database', 'mail', 'health', 'rate-limit', 'caller', 'i18n']],
  ['caller', ['database', 'mail', 'health', 'rate-limit', 'i18n']],
  ['i18n', ['database', 'mail', 'health', 'rate-limit', 'caller']],
  ['calendar', ['config', 'database', 'mail', 'health', 'rate-limit', 'caller', 'i18n']],
];

module.exports = {
  forbidden: [
    ...ORDER.slice(0, -1).map((layer) => ({
      name: `${layer}-imports-up`,
      comment: `${layer} (${LAYERS[layer].join(', ')}) imports only its own layer and the layers below it`,
      severity: 'error',
      from: { path: folders(LAYERS[layer]), pathNot: NOT_SPECS },
      to: { path: [folders(above(layer)), EDGE] },
    })),
    {
      name: 'pages-import-edge',
      comment: 'pages know nothing of the edge or the assembly',
      severity: 'error',
      from: { path: folders(LAYERS.pages), pathNot: NOT_SPECS },
      to: { path: EDGE },
    },
    ...WITHIN.map(([from, to]) => ({
      name: `${from}-imports-${to.join('-')}`,
      comment: `${from}/ sits below ${to.join(', ')} in its layer`,
      severity: 'error',
      from: { path: folders([from]), pathNot: NOT_SPECS },
      to: { path: folders(to) },
    })),
    // One way to the database per module: its SQL in its repositories (`*.repository.ts`), shared SQL helpers in database/.
    {
      name: 'dto-imports-repository',
      comment: 'a DTO maps from domain types (e.g. declarations/declaration.ts), never from the row types of a repository',
      severity: 'error',
      from: { path: '/dto/', pathNot: NOT_SPECS },
      to: { path: '\\.repository\\.ts$' },
    },
    {
      name: 'service-or-controller-imports-pg',
      comment: 'services and controllers do not talk to PostgreSQL: the driver (pg, pg-query-stream) is for repositories and database/',
      severity: 'error',
      from: { path: '\\.(service|controller)\\.ts$', pathNot: NOT_SPECS },
      to: { path: '(^|/)node_modules/(pg|pg-query-stream)/' },
    },
    {
      name: 'service-imports-dto',
      comment: 'a service takes and returns domain types: the controller maps DTO ↔ domain',
      severity: 'error',
      from: { path: '\\.service\\.ts$', pathNot: NOT_SPECS },
      to: { path: '/dto/' },
    },
    {
      name: 'service-imports-http',
      comment: 'a service takes domain inputs: HTTP (common/http/: bodies, prebuilt files) stays in controllers and the edge',
      severity: 'error',
      from: { path: '\\.service\\.ts$', pathNot: NOT_SPECS },
      to: { path: '^src/common/http/' },
    },
    {
      name: 'no-circular',
      comment: 'no cycles between files (type-only imports included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/metadata\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
