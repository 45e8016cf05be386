import { describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import { PAGE_MESSAGES, PageBreaker, pageStarts } from '../../src/model/paging.ts';

let line = 0;
function msg(kind: string, extra: Partial<NormalizedMessage> = {}): NormalizedMessage {
  line += 1;
  return {
    id: `t#${line}`,
    timestamp: '2026-04-01T00:00:00.000Z',
    role: kind === 'prompt' ? 'user' : 'assistant',
    source_type: 'message',
    segments: [],
    raw: { event_type: 'x', file_path: 'f', line_index: line },
    metadata: { kind: kind as never },
    ...extra,
  };
}
const call = (id: string) =>
  msg('response', { source_type: 'tool_call', tool_call: { call_id: id, name: 'Bash', status: 'completed' } });
const result = (id: string, output = 'ok') =>
  msg('response', {
    role: 'tool',
    source_type: 'tool_result',
    tool_call: { call_id: id, name: 'unknown', status: 'completed', output },
  });
const background = () => msg('system_event', { role: 'meta', source_type: 'meta' });

/** Every call's result is on the call's page. */
function callsStayWithResults(messages: NormalizedMessage[], starts: number[]): void {
  const pageOf = (i: number) => starts.filter((s) => s <= i).length;
  const callAt = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.source_type === 'tool_call') callAt.set(m.tool_call!.call_id, i);
    if (m.source_type === 'tool_result') expect(pageOf(i)).toBe(pageOf(callAt.get(m.tool_call!.call_id)!));
  });
}

describe('pages by prompt', () => {
  it('cuts a very long single prompt only between a result and the next step, never between a call and its result', () => {
    const messages = [msg('prompt')];
    for (let i = 0; i < 500; i++) messages.push(call(`c${i}`), background(), result(`c${i}`, 'x'.repeat(9000)));
    messages.push(msg('response'));
    const starts = pageStarts(messages);
    expect(starts.length).toBeGreaterThan(3);
    callsStayWithResults(messages, starts);
    for (const start of starts.slice(1)) expect(messages[start]!.source_type).toBe('tool_call');
  });

  it('keeps parallel calls with their results when their results come after all of them', () => {
    const messages = [msg('prompt')];
    for (let i = 0; i < 200; i++) {
      messages.push(call(`a${i}`), call(`b${i}`), call(`c${i}`));
      messages.push(result(`b${i}`), result(`a${i}`), result(`c${i}`, 'y'.repeat(4000)));
    }
    const starts = pageStarts(messages);
    expect(starts.length).toBeGreaterThan(1);
    callsStayWithResults(messages, starts);
  });

  it('prefers a prompt over a step, and never leaves background events alone on a page', () => {
    const messages: NormalizedMessage[] = [];
    for (let i = 0; i < 400; i++) messages.push(background());
    for (let t = 0; t < 100; t++) messages.push(msg('prompt'), call(`p${t}`), result(`p${t}`), msg('response'));
    const starts = pageStarts(messages);
    expect(starts.length).toBeGreaterThan(1);
    for (const [i, start] of starts.entries()) {
      const end = starts[i + 1] ?? messages.length;
      const page = messages.slice(start, end);
      expect(page.some((m) => m.metadata?.kind === 'prompt' || m.source_type === 'tool_call')).toBe(true);
      if (i > 0) expect(messages[start]!.metadata?.kind).toBe('prompt');
      expect(end - start).toBeLessThanOrEqual(2 * PAGE_MESSAGES);
    }
  });

  it('counts the real prompts before each page, and carries on from a saved state', () => {
    const messages: NormalizedMessage[] = [];
    for (let t = 0; t < 300; t++) messages.push(msg('prompt'), msg('response'), msg('response'));
    const whole = new PageBreaker();
    messages.forEach((m, i) => whole.add(m, i));
    const half = new PageBreaker();
    messages.slice(0, 450).forEach((m, i) => half.add(m, i));
    const resumed = new PageBreaker(JSON.parse(JSON.stringify(half.toJSON())));
    messages.slice(450).forEach((m, i) => resumed.add(m, i + 450));
    expect(resumed.starts()).toEqual(whole.starts());
    expect(resumed.promptsBefore()).toEqual(whole.promptsBefore());
    const starts = whole.starts();
    expect(whole.promptsBefore()).toEqual(
      starts.map((s) => messages.slice(0, s).filter((m) => m.metadata?.kind === 'prompt').length),
    );
  });

  it('reads a state saved before breaks were chosen by prompt', () => {
    const old = { starts: [0], sizes: [1, 1], chars: 2, lastPrompt: -1 };
    const pages = new PageBreaker(old);
    pages.add(msg('prompt'), 2);
    expect(pages.starts()).toEqual([0]);
    expect(pages.promptsBefore()).toBeUndefined();
  });
});
