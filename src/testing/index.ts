/**
 * @module The testing entry point (`signalbox/testing`): in-memory ports, and a clock tests can set and
 * advance. Test doubles live here and only here, so the main entry point exports none of them.
 */
export * from './in-memory';
export { ManualClock } from './manual-clock';
