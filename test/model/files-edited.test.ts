import { describe, expect, it } from 'vitest';
import { editedFiles } from '../../src/model/files-edited.ts';
import { SessionAccumulator } from '../../src/model/session-accumulator.ts';
import { MAIN_THREAD } from '../../src/model/body.ts';
import type { NormalizedMessage, ToolStatus } from '../../src/model/message.ts';

const patch = [
  '*** Begin Patch',
  '*** Update File: src/a.ts',
  '@@',
  '-x',
  '+y',
  '*** Add File: docs/新しい.md',
  '+z',
  '*** Delete File: old.txt',
  '*** Update File: src/b.ts',
  '*** Move to: src/c.ts',
  '*** End Patch',
].join('\n');

describe('files a tool call edits', () => {
  it('reads Claude Code, Amazon Q and Codex edit calls', () => {
    expect(
      editedFiles({ name: 'Edit', arguments_json: { file_path: '/r/a.ts', old_string: 'a', new_string: 'b' } }),
    ).toEqual(['/r/a.ts']);
    expect(editedFiles({ name: 'MultiEdit', arguments: '{"file_path":"/r/m.ts","edits":[]}' })).toEqual(['/r/m.ts']);
    expect(editedFiles({ name: 'Write', arguments_json: { file_path: '/r/w.ts', content: '' } })).toEqual(['/r/w.ts']);
    expect(editedFiles({ name: 'NotebookEdit', arguments_json: { notebook_path: '/r/n.ipynb' } })).toEqual([
      '/r/n.ipynb',
    ]);
    expect(editedFiles({ name: 'fs_write', arguments_json: { command: 'create', path: '/r/q.ts' } })).toEqual([
      '/r/q.ts',
    ]);
    // Codex: freeform apply_patch, and apply_patch run through the shell.
    const files = ['src/a.ts', 'docs/新しい.md', 'old.txt', 'src/b.ts', 'src/c.ts'];
    expect(editedFiles({ name: 'apply_patch', arguments: patch })).toEqual(files);
    expect(editedFiles({ name: 'shell', arguments_json: { command: ['apply_patch', patch] } })).toEqual(files);
    expect(
      editedFiles({ name: 'exec_command', arguments: JSON.stringify({ cmd: `apply_patch <<'EOF'\n${patch}\nEOF` }) }),
    ).toEqual(files);
  });

  it('ignores reads, plain shell commands and malformed input', () => {
    expect(editedFiles({ name: 'Read', arguments_json: { file_path: '/r/a.ts' } })).toEqual([]);
    expect(editedFiles({ name: 'shell', arguments_json: { command: ['ls', '-la'] } })).toEqual([]);
    expect(editedFiles({ name: 'Edit', arguments: '{not json' })).toEqual([]);
    expect(editedFiles({ name: 'Edit', arguments_json: { file_path: 42 } })).toEqual([]);
  });
});

function call(
  id: string,
  name: string,
  status: ToolStatus,
  args: unknown,
  at: string,
  responseId: string,
): NormalizedMessage {
  return {
    id: `${at}#${id}`,
    timestamp: at,
    role: 'tool',
    source_type: 'tool_call',
    segments: [],
    tool_call: { call_id: id, name, status, arguments: JSON.stringify(args), arguments_json: args },
    metadata: { kind: 'tool_call', response_id: responseId },
  } as unknown as NormalizedMessage;
}

describe('the accumulator', () => {
  it('records edited files per 15-minute slot, refusals apart from errors, and main-thread entries', () => {
    const acc = new SessionAccumulator();
    acc.message(
      MAIN_THREAD,
      call('c1', 'Edit', 'completed', { file_path: '/r/a.ts' }, '2026-03-03T10:01:00.000Z', 'r1'),
    );
    acc.message(
      MAIN_THREAD,
      call('c2', 'Edit', 'rejected', { file_path: '/r/b.ts' }, '2026-03-03T10:02:00.000Z', 'r2'),
    );
    acc.message(MAIN_THREAD, call('c3', 'Bash', 'error', { command: 'false' }, '2026-03-03T10:20:00.000Z', 'r3'));
    acc.message(
      'agent-1',
      call('c4', 'Write', 'completed', { file_path: '/r/a.ts' }, '2026-03-03T10:21:00.000Z', 's1'),
    );
    // A result that arrives later turns a call into a refusal.
    acc.message(
      MAIN_THREAD,
      call('c5', 'Bash', 'unanswered', { command: 'rm -rf /' }, '2026-03-03T10:22:00.000Z', 'r4'),
    );
    acc.patch(MAIN_THREAD, { tool: 'Bash', status: 'rejected', was: { status: 'unanswered' } } as never);
    const { stats } = acc.result(['agent-1']);
    expect(stats.activity['2026-03-03T10:00']!.filesEdited).toEqual({ '/r/a.ts': 1, '/r/b.ts': 1 });
    expect(stats.activity['2026-03-03T10:15']!.filesEdited).toEqual({ '/r/a.ts': 1 });
    expect(stats.toolErrors).toBe(1);
    expect(stats.toolErrorsByName).toEqual({ Bash: 1 });
    expect(stats.toolRefusals).toBe(2);
    expect(stats.toolRefusalsByName).toEqual({ Edit: 1, Bash: 1 });
    expect(stats.entries).toBe(5);
    expect(stats.mainEntries).toBe(4);
    expect(stats.subagentEntries).toBe(1);
  });
});
