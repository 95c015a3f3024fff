/**
 * The durable code does not depend on the durable backend (issue 41 section 1): no registration names a
 * task hub, a connection or a provider, so every durable binding takes host.json's durableTask settings,
 * which the deployment's app settings override to pick Azure Storage or the Durable Task Scheduler
 * (test/infra/durable-backend.test.ts). Registrations are captured as in registration.test.ts.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import '../../functions/index';

interface Binding {
  readonly type: string;
  readonly [key: string]: unknown;
}
interface FunctionMetadata {
  readonly name: string;
  readonly bindings: Record<string, Binding>;
}

const registered = (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls.map(([metadata]) => metadata as FunctionMetadata);
const DURABLE_BINDINGS = ['orchestrationTrigger', 'activityTrigger', 'entityTrigger', 'durableClient'];
const durableBindings = registered.flatMap((fn) =>
  Object.values(fn.bindings)
    .filter((binding) => DURABLE_BINDINGS.includes(binding.type))
    .map((binding) => ({ fn: fn.name, binding })),
);

describe('durable bindings', () => {
  it('are registered: orchestrations, activities and clients', () => {
    const types = new Set(durableBindings.map(({ binding }) => binding.type));
    expect([...types].sort()).toEqual(['activityTrigger', 'durableClient', 'orchestrationTrigger']);
  });

  it('name no task hub, connection or provider: host.json and its app-setting overrides decide', () => {
    const overriding = durableBindings
      .map(({ fn, binding }) => ({ fn, type: binding.type, keys: Object.keys(binding).filter((key) => !['type', 'name', 'direction', 'properties'].includes(key)) }))
      .filter(({ keys }) => keys.length > 0);
    expect(overriding).toEqual([]);
    const properties = durableBindings.flatMap(({ binding }) => Object.keys((binding.properties as Record<string, unknown> | undefined) ?? {}));
    expect([...new Set(properties)]).toEqual(['supportsDeferredBinding']);
  });
});

describe('the Functions code', () => {
  const root = join(__dirname, '..', '..');
  const sources = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
  const files = [...sources('functions'), ...sources('src')];

  it("uses no storage queue itself: Durable's queues (Azure Storage backend) are the only ones, so nothing of Signalbox's needs them", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => /@azure\/storage-queue/.test(readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });

  it("never reads the task hub's own storage or the provider's settings: it reaches Durable Functions through durable-functions only", () => {
    // The hub's name is for host.json alone (settings.ts lists it so the deployment provides it): code that
    // knew it could address the Azure Storage backend's tables, queues and containers, named after it.
    const providerDetails = /storageProvider|DURABLE_TASK_SCHEDULER|-control-(?:\d|\$)|-workitems|largemessages|SIGNALBOX_TASK_HUB/;
    const readers = files.filter((file) => providerDetails.test(readFileSync(join(root, file), 'utf8')));
    expect(readers).toEqual([join('src', 'host', 'settings.ts')]);
    expect(readFileSync(join(root, 'src/host/settings.ts'), 'utf8').match(new RegExp(providerDetails, 'g'))).toEqual(['SIGNALBOX_TASK_HUB']);
  });
});
