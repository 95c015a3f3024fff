/** Issue 9: log lines could be forged with newlines from trigger data and had no size cap. */
import { MAX_LOG_MESSAGE_LENGTH } from '../../src/engine/log-text';
import { MAX_LOG_LINE_LENGTH, createConsoleLogger } from '../../src/host/logger';
import { testEngine } from '../engine/support';

function capture() {
  const lines: string[] = [];
  const logger = createConsoleLogger({ write: (_level, line) => lines.push(line) });
  return { logger, lines };
}

describe('the console logger', () => {
  it('escapes newlines and other control characters, so one event is one line', () => {
    const { logger, lines } = capture();
    const forged = 'approved by ann\n2026-01-01T00:00:00.000Z error admin logged in\r\u001b[31m\u2028';
    logger.info(forged, { note: forged });
    logger.warn(forged);
    logger.error(forged, { nested: { note: forged } });
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toMatch(/[\n\r\u001b\u2028]/);
      expect(line).toContain('approved by ann\\n2026-01-01T00:00:00.000Z error admin logged in\\r\\u001b[31m\\u2028');
    }
  });

  it('caps a line, saying how much was cut', () => {
    const { logger, lines } = capture();
    logger.info('x'.repeat(100_000), { more: 'y'.repeat(100_000) });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(MAX_LOG_LINE_LENGTH + 100);
    expect(lines[0]).toMatch(/… \(\d+ more characters\)$/);
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
