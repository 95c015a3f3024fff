/** Issue 9: log lines could be forged with newlines from trigger data and had no size cap. */
import { MAX_LOG_MESSAGE_LENGTH } from '../../src/engine/model';
import { MAX_LOG_LINE_LENGTH, MAX_LOG_PROPERTY_LENGTH, createConsoleLogger } from '../../src/host/local/logger';
import { testEngine } from '../engine/support';

function capture() {
  const lines: string[] = [];
  const logger = createConsoleLogger({ write: (line) => lines.push(line) });
  return { logger, lines };
}

describe('the console logger', () => {
  it('writes one JSON line per event: newlines and control characters in messages and properties are escaped', () => {
    const { logger, lines } = capture();
    const forged = 'approved by ann\n{"level":"error","msg":"admin logged in"}\r\u001b[31m\u2028';
    logger.info(forged, { note: forged });
    logger.warn(forged);
    logger.error(forged, { nested: { note: forged } });
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toMatch(/[\n\r\u001b]/);
      expect(JSON.parse(line)).toMatchObject({ msg: forged });
    }
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', note: forged });
  });

  it('caps the message and each property, saying how much was cut', () => {
    const { logger, lines } = capture();
    logger.info('x'.repeat(100_000), { more: 'y'.repeat(100_000), nested: { list: Array.from({ length: 10_000 }, (_, index) => index) } });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(MAX_LOG_LINE_LENGTH + 3 * MAX_LOG_PROPERTY_LENGTH + 300);
    const event = JSON.parse(lines[0]!) as { msg: string; more: string; nested: string };
    expect(event.msg).toMatch(/… \(91808 more characters\)$/);
    expect(event.more).toMatch(/… \(\d+ more characters\)$/);
    expect(event.nested).toMatch(/^\{"list":\[0,1,2,.*… \(\d+ more characters\)$/);
  });
});

describe('the log action', () => {
  it('caps a message rendered from trigger data of any size', async () => {
    const { engine, logger } = testEngine();
    await engine.createWorkflow({
      id: 'chatty',
      displayName: 'chatty',
      initialStateId: 'a',
      states: { a: { transitions: [{ id: 'say', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Say' }], actions: [{ type: 'log', message: 'said: {{trigger.parameters.text}}' }] }] } },
    });
    await engine.createInstance({ workflowId: 'chatty', instanceId: 'c1' });
    await engine.applyTrigger('c1', { id: 't1', name: 'Say', subjects: ['c1'], parameters: { text: 'z'.repeat(60_000) } });
    const said = logger.lines.find((line) => line.message.startsWith('said: '))!;
    expect(said.message.length).toBeLessThan(MAX_LOG_MESSAGE_LENGTH + 50);
    expect(said.message).toMatch(/… \(\d+ more characters\)$/);
  });
});
