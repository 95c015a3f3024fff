/**
 * End-to-end tests of the web console in a real headless browser (`npm run test:browser`): Debian's
 * chromium driven by playwright-core, against a real local server on the same in-memory Azurite the
 * unit suite uses. Kept out of `npm test`, which needs nothing beyond `npm ci`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/browser/**/*.browser.ts'],
  testTimeout: 120000,
  // One browser at a time: the machine has two cores and chromium is heavy.
  maxWorkers: 1,
};
