import type { RunningAzurite } from '../../src/host/local/azurite';

export default async function globalTeardown(): Promise<void> {
  const azurite = (globalThis as { __SIGNALBOX_AZURITE__?: RunningAzurite }).__SIGNALBOX_AZURITE__;
  await azurite?.stop();
}
