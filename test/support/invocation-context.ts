/** The InvocationContext the Functions host gives a function registered with a durable client input, for tests that call handlers directly. */
import { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';

/** A context carrying a durable client input; `baseUrl` is where that client would send its requests. */
export function durableInvocationContext(invocationId = 'inv-1', baseUrl = 'http://127.0.0.1:9/runtime/webhooks/durabletask'): InvocationContext {
  const durableClient = df.input.durableClient();
  const context = new InvocationContext({ functionName: 'test', invocationId, options: { extraInputs: [durableClient] }, logHandler: () => {} });
  context.extraInputs.set(durableClient, { taskHubName: 'SignalboxHub', creationUrls: {}, managementUrls: {}, baseUrl, requiredQueryStringParameters: 'code=test' });
  return context;
}
