import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/model/message.ts';
import { toolOutputView } from '../../src/transcript/tool-view.ts';

const bash: ToolCall = {
  call_id: 'toolu_1',
  name: 'Bash',
  status: 'completed',
  arguments_json: { command: 'npm run dev', run_in_background: true },
};

describe('what a shell result shows', () => {
  it('a command started in the background: the text the model got, not the empty structured stdout', () => {
    const text = 'Command running in background with ID: bash_7';
    const view = toolOutputView(bash, text, { stdout: '', stderr: '', interrupted: false, backgroundTaskId: 'bash_7' });
    expect(view).toEqual({ kind: 'shell', exitCode: undefined, stdout: text, stderr: undefined, interrupted: false });
  });

  it('a command with output shows its structured stdout and stderr', () => {
    const view = toolOutputView(bash, 'ok\nwarn', { stdout: 'ok', stderr: 'warn', interrupted: false });
    expect(view).toMatchObject({ kind: 'shell', stdout: 'ok', stderr: 'warn' });
  });
});
