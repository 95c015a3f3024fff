/**
 * The Functions app's log lines (invocationLogger) go through the same redaction as the local server's
 * (src/host/local/logger.ts): no userinfo, query value or fragment of a URL leaves in a message or a property,
 * whoever wrote the line (the engine's fault line, a poison operation, an event delivery's reason).
 */
import type { InvocationContext } from '@azure/functions';
import { inInvocation, invocationLogger } from '../../functions/app-services';

const SECRET_URL = 'https://alice:hunter2pass@service.example/hook?code=functionKeyS3cret#fragmentS3cret';
const SECRETS = ['alice', 'hunter2pass', 'functionKeyS3cret', 'fragmentS3cret'];

function recordingContext() {
  const lines: unknown[][] = [];
  const record = (...args: unknown[]) => void lines.push(args);
  return { lines, context: { info: record, warn: record, error: record } as unknown as InvocationContext };
}

describe('invocationLogger', () => {
  it('redacts secrets in URLs from the message and every property, at each level', async () => {
    const { lines, context } = recordingContext();
    await inInvocation(context, async () => {
      invocationLogger.error(`An instance faulted calling ${SECRET_URL}`, { instanceId: 'i1', reason: `the external service ${SECRET_URL} answered HTTP 500`, nested: { url: SECRET_URL } });
      invocationLogger.warn('A lifecycle event delivery failed; trying again', { reason: `POST ${SECRET_URL} failed: ECONNREFUSED` });
      invocationLogger.info(SECRET_URL);
    });
    expect(lines).toHaveLength(3);
    const text = JSON.stringify(lines);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('https://***@service.example/hook?code=***#***');
    expect((lines[0]![1] as Record<string, unknown>).instanceId).toBe('i1');
  });
});
