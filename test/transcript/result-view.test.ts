import { describe, expect, it } from 'vitest';
import type { NormalizedMessage, ToolCall } from '../../src/model/message.ts';
import { LOOKUP_PAGE_CHARS, RESULT_PAGE_CHARS, resultView } from '../../src/transcript/view-items.ts';

const result = (output: string, name = 'Bash') =>
  ({
    id: 'r1',
    role: 'tool',
    source_type: 'tool_result',
    timestamp: '2026-03-01T10:00:00.000Z',
    segments: [],
    tool_call: { call_id: 'c1', name, status: 'completed', output },
    metadata: {},
  }) as unknown as NormalizedMessage;

describe("a tool's output on the page", () => {
  it('is shown whole up to the limit', () => {
    const output = 'line\n'.repeat(RESULT_PAGE_CHARS / 5);
    expect(output.length).toBe(RESULT_PAGE_CHARS);
    expect(resultView(result(output))).toMatchObject({ output, truncated: 0 });
  });

  it('past it, ends after the last whole line that fits, and counts the rest', () => {
    const line = `${'x'.repeat(99)}\n`;
    const output = line.repeat(40);
    const view = resultView(result(output));
    expect(view.output).toBe(line.repeat(Math.floor(RESULT_PAGE_CHARS / line.length)));
    expect(view.truncated).toBe(output.length - view.output.length);
  });

  it('a line too long to end in the second half is cut at the limit, never inside a surrogate pair', () => {
    const output = `${'a'.repeat(RESULT_PAGE_CHARS - 1)}😀${'b'.repeat(10)}\nmore`;
    const view = resultView(result(output));
    expect(view.output).toBe('a'.repeat(RESULT_PAGE_CHARS - 1));
    expect(view.truncated).toBe(output.length - (RESULT_PAGE_CHARS - 1));
    const plain = resultView(result('c'.repeat(5000)));
    expect(plain.output.length).toBe(RESULT_PAGE_CHARS);
    expect(plain.truncated).toBe(5000 - RESULT_PAGE_CHARS);
  });

  it("a lookup's output (a file read, files found, a page fetched) is shown to a shorter limit, in any assistant's name for it", () => {
    const line = `${'y'.repeat(39)}\n`;
    const output = line.repeat(RESULT_PAGE_CHARS / line.length);
    expect(output.length).toBe(RESULT_PAGE_CHARS);
    for (const name of [
      'Read',
      'Grep',
      'Glob',
      'WebFetch',
      'read_file',
      'fs_read',
      'list_directory',
      'mcp__fs__grep_search',
    ]) {
      const call: ToolCall = { call_id: 'c1', name, status: 'completed' };
      const view = resultView(result(output, name), call);
      expect(view.output, name).toBe(line.repeat(LOOKUP_PAGE_CHARS / line.length));
      expect(view.truncated, name).toBe(output.length - LOOKUP_PAGE_CHARS);
    }
    // What a tool did (a command, an edit, a task) keeps the longer limit, with or without its call.
    for (const name of ['Bash', 'Edit', 'Task', 'exec_command']) {
      expect(resultView(result(output, name), { call_id: 'c1', name, status: 'completed' }), name).toMatchObject({
        output,
        truncated: 0,
      });
    }
    expect(resultView(result(output, 'Read')).output.length).toBe(LOOKUP_PAGE_CHARS);
    // An archive written before records were checked may hold a name that is not text: the longer limit, no throw.
    const odd = 42 as unknown as string;
    expect(resultView(result(output, odd))).toMatchObject({ output, truncated: 0 });
    expect(resultView(result(output, odd), { call_id: 'c1', name: odd, status: 'completed' })).toMatchObject({
      output,
      truncated: 0,
    });
  });
});

describe("a command's structured output on the page", () => {
  const withJson = (output: string, json: unknown) => {
    const m = result(output);
    m.tool_call!.output_json = json;
    return m;
  };
  const bash: ToolCall = { call_id: 'c1', name: 'Bash', status: 'completed' };

  it('is cut to the same limit as the text, stdout and stderr each, and the note counts what they leave out', () => {
    const line = `${'o'.repeat(49)}\n`;
    const stdout = line.repeat(200);
    const stderr = `${'e'.repeat(30)}\n`.repeat(100);
    const view = resultView(withJson('text the model got', { stdout, stderr, interrupted: false }), bash);
    expect(view.view).toMatchObject({ kind: 'shell', stdout: line.repeat(RESULT_PAGE_CHARS / line.length) });
    const shownErr = (view.view as { stderr: string }).stderr;
    expect(shownErr.length).toBeLessThanOrEqual(RESULT_PAGE_CHARS);
    expect(stderr.startsWith(shownErr)).toBe(true);
    expect(view.truncated).toBe(stdout.length - RESULT_PAGE_CHARS + stderr.length - shownErr.length);
  });

  it('a stderr beside the text (no structured stdout) is cut too, and counted with the text', () => {
    const text = 't'.repeat(RESULT_PAGE_CHARS * 2);
    const stderr = 'e'.repeat(RESULT_PAGE_CHARS * 3);
    const view = resultView(withJson(text, { stderr }), bash);
    expect(view.view).toMatchObject({
      kind: 'shell',
      stdout: 't'.repeat(RESULT_PAGE_CHARS),
      stderr: 'e'.repeat(RESULT_PAGE_CHARS),
    });
    expect(view.truncated).toBe(text.length - RESULT_PAGE_CHARS + stderr.length - RESULT_PAGE_CHARS);
  });

  it('shown whole when short, with nothing counted for a longer text it replaces', () => {
    const view = resultView(withJson('t'.repeat(5000), { stdout: 'ok\n', stderr: '', interrupted: false }), bash);
    expect(view.view).toMatchObject({ kind: 'shell', stdout: 'ok\n' });
    expect(view.truncated).toBe(0);
  });
});
