// ESLint (flat config, typescript-eslint without type information, so it stays fast on 2 shared cores).
// The import rules mirror the layering that test/layering.test.ts and test/engine/boundaries.test.ts
// check: an editor shows the offence as it is typed, the tests stay the proof.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Relative imports into any of these top-level folders (a path segment of the specifier). */
function intoLayers(...layers) {
  return { regex: `(^|/)(${layers.join('|')})(/|$)`, message: `This layer may not import ${layers.join(', ')} (test/layering.test.ts: dependencies point inward).` };
}

/** Package imports of src/engine: only pure computation (zod, jsonata, the OpenTelemetry API, luxon) and relative ones. */
function engineOnly(...extra) {
  const allowed = ['zod', 'jsonata', '@opentelemetry/api', 'luxon', ...extra].map((name) => name.replace(/[/.]/g, '\\$&'));
  return { regex: `^(?!\\.|(${allowed.join('|')})$)`, message: 'src/engine imports no Azure SDK and no Node I/O (test/engine/boundaries.test.ts): add a port instead.' };
}

/** Outside the engine: its folders (their index.ts), never the files inside them (test/layering.test.ts). */
const engineFiles = { regex: '(^|/)src/engine/[a-z-]+/|^(\\.\\./)+engine/[a-z-]+/', message: 'Import the engine folder (its index.ts), not a file inside it (test/layering.test.ts).' };

/** One `no-restricted-imports` per layer (a later block replaces the rule, so each lists all its patterns). */
function restrict(...patterns) {
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const everyLayer = ['storage', 'leasing', 'outbound', 'host', 'testing', 'client', 'cli', 'functions'];
const engineLayers = intoLayers(...everyLayer);

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'docs/.vitepress/dist/**', 'docs/.vitepress/cache/**', 'coverage/**', '.azurite/**', 'console/dist/**', 'src/client/api-types.ts'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter a signature needs and the body does not (ports, handlers).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Declaration merging of a const and its type of the same name (`DeliveryStatus`) is the codebase's enum idiom.
      'no-redeclare': 'off',
      // `let x; ... () => x ...; x = ...`: a closure made before the value exists (a server's submit, a test's key).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Stripping control characters (terminal safety, log text, keys) is what those regexes are for.
      'no-control-regex': 'off',
      // `require` is used on purpose: lazy loads that keep cold start short (telemetry, the CloudEvents SDK).
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  { files: ['console/**/*.{ts,tsx}', 'test/browser/**', 'test/console/**'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['bin/**/*.js', '*.config.js', '**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  // Tests and benchmarks read JSON of any shape and assert it; `any` there is the point, not a gap.
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },

  // The layers (test/layering.test.ts), on relative imports.
  { files: ['src/engine/**/*.ts'], rules: restrict(engineLayers, engineOnly()) },
  { files: ['src/engine/expressions/expression-worker-pool.ts'], rules: restrict(engineLayers, engineOnly('node:worker_threads')) },
  { files: ['src/engine/events/cloud-event.ts'], rules: restrict(engineLayers, engineOnly('cloudevents')) },
  { files: ['src/testing/**/*.ts'], rules: restrict(intoLayers('storage', 'leasing', 'outbound', 'host', 'client', 'cli', 'functions'), engineFiles) },
  { files: ['src/storage/**/*.ts', 'src/leasing/**/*.ts'], rules: restrict(intoLayers('outbound', 'host', 'testing', 'client', 'cli', 'functions'), engineFiles) },
  { files: ['src/outbound/**/*.ts'], rules: restrict(intoLayers('storage', 'leasing', 'host', 'testing', 'client', 'cli', 'functions'), engineFiles) },
  { files: ['src/host/**/*.ts'], rules: restrict(intoLayers('testing', 'client', 'cli', 'functions'), engineFiles) },
  { files: ['functions/**/*.ts'], rules: restrict(intoLayers('testing', 'client', 'cli'), engineFiles) },
  { files: ['src/cli/**/*.ts', 'test/**/*.{ts,tsx}', 'bench/**/*.ts', 'scripts/**/*.ts'], rules: restrict(engineFiles) },
  // The orchestrators and the activity contracts they load name the pure files they may load (test/functions/determinism.test.ts).
  {
    files: [
      'functions/*-orchestrator.ts',
      'functions/apply-operation-batch.ts',
      'src/host/contracts/operation-activities.ts',
      'src/host/contracts/event-activities.ts',
      'src/host/contracts/timer-activities.ts',
    ],
    rules: restrict(intoLayers('testing', 'client', 'cli')),
  },
  // The typed client stands alone: the CLI and the web console import it.
  { files: ['src/client/**/*.ts'], rules: restrict(intoLayers('engine', ...everyLayer.filter((layer) => layer !== 'client'))) },
);
