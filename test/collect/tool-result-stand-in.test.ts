import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { bodyMessages, bodyMessagesButToolResults, DataDir, toolResultStandIn } from '../../src/archive/data-dir.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

const line = (value: unknown) => Buffer.from(JSON.stringify(value));

async function collectLight(dataDir: string, body: string) {
  const entries = [];
  for await (const entry of bodyMessagesButToolResults(dataDir, body)) entries.push(entry);
  return entries;
}

describe('tool results known from their first bytes', () => {
  it('stands in for exactly the tool results of every archived body, and gives every other message whole', async () => {
    const dataDir = path.join(await tempDir('stand-in'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const skippedBySource = new Map<string, number>();
    let messages = 0;
    for (const summary of await new DataDir(dataDir).readSummaries()) {
      const whole = [];
      for await (const entry of bodyMessages(dataDir, summary.body)) whole.push(entry);
      const light = await collectLight(dataDir, summary.body);
      expect(light.length, summary.id).toBe(whole.length);
      whole.forEach(({ thread, message }, i) => {
        expect(light[i]!.thread).toBe(thread);
        if (message.source_type === 'tool_result') {
          expect(light[i]!.message, `${summary.id} ${message.id}`).toBeUndefined();
          skippedBySource.set(summary.source, (skippedBySource.get(summary.source) ?? 0) + 1);
        } else expect(light[i]!.message).toEqual(message);
      });
      messages += whole.length;
    }
    expect(messages).toBeGreaterThan(100);
    // Tool results of more than one source, as each writes its messages' fields in its own order.
    expect([...skippedBySource.keys()].length).toBeGreaterThanOrEqual(2);
  });

  it('is not fooled by the words in text, in nested fields or after one, and names the thread', () => {
    const result = { id: 'a#1', timestamp: 't', role: 'tool', source_type: 'tool_result', segments: [] };
    expect(toolResultStandIn(line({ thread: '', message: result }))).toEqual({ thread: '' });
    expect(toolResultStandIn(line({ thread: 'agent-"x"\\y', message: result }))).toEqual({ thread: 'agent-"x"\\y' });
    expect(toolResultStandIn(line({ thread: '', message: { n: 3, ok: true, none: null, ...result } }))).toEqual({
      thread: '',
    });
    // A prompt quoting the words, a field holding them inside an object, the field after an object.
    const prompt = { id: 'a#2', role: 'user', text: '"source_type":"tool_result"', source_type: 'message' };
    expect(toolResultStandIn(line({ thread: '', message: prompt }))).toBeUndefined();
    const nested = { id: 'a#3', raw: { source_type: 'tool_result' }, source_type: 'message' };
    expect(toolResultStandIn(line({ thread: '', message: nested }))).toBeUndefined();
    const afterObject = { id: 'a#4', raw: {}, source_type: 'tool_result' };
    expect(toolResultStandIn(line({ thread: '', message: afterObject }))).toBeUndefined();
    expect(
      toolResultStandIn(line({ thread: '', message: { ...result, source_type: 'tool_result_x' } })),
    ).toBeUndefined();
    expect(toolResultStandIn(line({ thread: '', patch: { id: 'a#1' } }))).toBeUndefined();
    expect(toolResultStandIn(line({ message: result, thread: '' }))).toBeUndefined();
    expect(
      toolResultStandIn(Buffer.from('{"thread":"","message":{"id":"a#5","source_type":"tool_res')),
    ).toBeUndefined();
  });
});
