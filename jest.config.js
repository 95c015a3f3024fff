/**
 * Jest runs TypeScript through @swc/jest (fast, no type-check); `npm test` runs `tsc --noEmit` first,
 * so types are still checked. Azurite is started once for the whole run by test/support/global-setup.ts.
 * The web console's component tests (test/console/*.test.tsx) compile Preact JSX the same way and choose
 * the jsdom environment in their own docblock. End-to-end browser tests are not here: see
 * jest.browser.config.js (`npm run test:browser`).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts', '**/*.test.tsx'],
  transform: {
    '/node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    '^.+\\.tsx$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic', importSource: 'preact' } } } }],
  },
  // jose is ESM only: Node (20.19+) requires it natively, jest's module loader does not, so it is compiled too.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  // Styles are the browser's business; component tests import modules that import CSS.
  moduleNameMapper: { '\\.css$': '<rootDir>/test/console/support/style-stub.js' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
