import { describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SubagentThread } from '../../src/model/session.ts';
import { buildThreadView } from '../../src/transcript/thread-view.ts';
import type { ViewItem } from '../../src/transcript/view-items.ts';

const raw = { event_type: 'assistant', file_path: 'x.jsonl', line_index: 1 };

function answer(id: string, text: string): NormalizedMessage {
  return {
    id,
    timestamp: '2026-03-01T09:00:00.000Z',
    role: 'assistant',
    source_type: 'message',
    segments: [{ channel: 'output', type: 'text', format: 'text', text }],
    raw,
    metadata: { kind: 'response' },
  };
}

function taskCall(id: string, callId: string): NormalizedMessage {
  return {
    id,
    timestamp: '2026-03-01T09:00:01.000Z',
    role: 'assistant',
    source_type: 'tool_call',
    segments: [],
    tool_call: { call_id: callId, name: 'Task', status: 'unanswered', arguments: '{"prompt":"go"}' },
    raw,
  };
}

/** A subagent started by `parentCallId` whose messages are an answer and, when `spawns`, a Task call of its own. */
function agent(agentId: string, parentCallId: string | undefined, spawns?: string): SubagentThread {
  const messages = [answer(`${agentId}-a`, `${agentId} answered`)];
  if (spawns) messages.push(taskCall(`${agentId}-c`, spawns));
  return { agentId, parentCallId, file: `${agentId}.jsonl`, messages };
}

/** Each subagent shown, with the subagent whose thread shows it (`null`: loose, at the thread's end). */
function placements(items: ViewItem[], under: string | null = null, found: [string, string | null][] = []) {
  for (const item of items) {
    if (item.kind !== 'tool') continue;
    for (const thread of item.subagents ?? []) {
      // A loose subagent is a tool item of its own at the thread's end, holding its own thread.
      found.push([thread.agentId, under]);
      placements(thread.items, thread.agentId, found);
    }
  }
  return found;
}

describe('the thread view of subagents that spawn subagents', () => {
  it('shows each once, under the call that spawned it, whatever order they are listed in', () => {
    // main → A → B → C, listed C, B, A.
    const items = buildThreadView(
      [answer('m1', 'main'), taskCall('m2', 'call-a')],
      [agent('C', 'call-c'), agent('B', 'call-b', 'call-c'), agent('A', 'call-a', 'call-b')],
    );
    expect(placements(items)).toEqual([
      ['A', null],
      ['B', 'A'],
      ['C', 'B'],
    ]);
  });

  it('nests the subagents of a loose one under it, and ends on subagents that spawned each other', () => {
    // L's call is unknown (loose); L → M. X and Y each claim the other's call: both shown once.
    const items = buildThreadView(
      [answer('m1', 'main')],
      [
        agent('M', 'call-m'),
        agent('X', 'call-x', 'call-y'),
        agent('Y', 'call-y', 'call-x'),
        agent('L', 'gone', 'call-m'),
      ],
    );
    const shown = placements(items);
    expect(shown.filter(([id]) => id === 'M' || id === 'L')).toEqual([
      ['L', null],
      ['M', 'L'],
    ]);
    expect(shown.map(([id]) => id).sort()).toEqual(['L', 'M', 'X', 'Y']);
  });
});
