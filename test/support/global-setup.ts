/**
 * Starts one in-memory Azurite for the whole jest run and hands its connection string to the test
 * workers through the environment (workers inherit the parent's environment at spawn).
 */
import { startAzurite } from '../../src/host/local/azurite';

export default async function globalSetup(): Promise<void> {
  const azurite = await startAzurite();
  process.env.SIGNALBOX_TEST_STORAGE = azurite.connectionString;
  (globalThis as { __SIGNALBOX_AZURITE__?: unknown }).__SIGNALBOX_AZURITE__ = azurite;
}
