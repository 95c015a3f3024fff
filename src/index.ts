/**
 * @module The library's main entry point (`signalbox`): the engine, its model and its ports. Azure
 * adapters are `signalbox/storage` and `signalbox/leasing`; in-memory ports and a manual clock for tests
 * are `signalbox/testing` (package.json `exports`), so no test double is exported from here.
 */
export * from './engine';
