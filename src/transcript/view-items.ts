import type { MessageSegment, NormalizedMessage, TokenUsage, ToolCall } from '../model/message.ts';
import {
  isLookupTool,
  isStructuredShell,
  type ToolInputView,
  type ToolOutputView,
  toolOutputView,
} from './tool-view.ts';

/** What a session page shows, in order: built from the normalized messages, source-agnostic. */

/** What every item has: where it is, and the background events folded into it. */
interface ItemBase {
  id: string;
  timestamp: string;
  estimated: boolean;
  /** Main-thread index of the item's first message (absent in subagent threads). */
  index?: number;
  /** Main-thread indexes of the other messages shown in this item (a result, streamed lines, folded events). */
  more?: number[];
  /** Background events (snapshots, hooks, progress…) that came with this step. */
  background?: { count: number; types: string[] };
}

export type ViewItem = ItemBase &
  (
    | {
        kind: 'prompt';
        /** 1-based number of this real prompt in the session (absent when unknown, as in subagent threads). */
        ordinal?: number;
        text: string;
        images: MessageSegment[];
        queued: boolean;
      }
    | {
        kind: 'answer';
        segments: MessageSegment[];
        model?: string;
        usage?: TokenUsage;
        responseId?: string;
      }
    | {
        kind: 'tool';
        call: ToolCall;
        input: ToolInputView;
        /** Characters of the input cut for the page (the data keeps everything). */
        inputTruncated?: number;
        headline: string;
        usage?: TokenUsage;
        result?: ResultView;
        subagents: ThreadView[];
      }
    | { kind: 'result'; result: ResultView }
    | { kind: 'divider'; label: string; detail?: string }
    | {
        kind: 'notice';
        tone: 'command' | 'output' | 'interrupt' | 'error' | 'info' | 'summary' | 'injected';
        label: string;
        text: string;
        html?: string;
        collapsed: boolean;
      }
    | {
        kind: 'command';
        /** `/init`, `/model opus`… */
        command: string;
        /** The text the command sent to the model (collapsed), and what it printed. */
        expanded: string[];
        output: string[];
      }
    | { kind: 'context'; parts: { label: string; text: string }[] }
    | { kind: 'hidden'; count: number; types: string[] }
  );

export interface ResultView {
  id: string;
  status: ToolCall['status'];
  name: string;
  output: string;
  /** Characters cut from `output` for the page (the data keeps everything). */
  truncated: number;
  images: MessageSegment[];
  view: ToolOutputView;
}

export interface ThreadView {
  agentId: string;
  label: string;
  description?: string;
  items: ViewItem[];
}

/** A tool call's input (a file written, an edit, a command) shown on the page up to this many characters. */
export const OUTPUT_PREVIEW_CHARS = 20_000;
/**
 * A tool's output shown on the page up to this many characters (12–15 lines, where the session's Markdown cuts
 * it too); a command's stdout and its stderr each. Outputs are most of a history's bytes (file contents read,
 * search hits, fetched pages, logs) and rarely read past their first lines; the calls' inputs, the prompts and
 * the answers are shown whole. The archive keeps every output, and `export` and the MCP server's session tool
 * (`max_output_chars`) give it whole. At 1,500
 * (20–25 lines) the outputs were 28 % of the session pages' bytes at bench scale 1, and the site 42 % of the
 * history (a static host's limit is 1 GB: issue 29's aim is 40 %); this cut took 6 % off the session pages.
 */
export const RESULT_PAGE_CHARS = 1_000;
/**
 * A lookup's output (a file read, files listed or searched, a page fetched: see isLookupTool) shown up to this many
 * characters, about ten lines: enough to see what it found. It is what the assistant read, not what it did; at
 * 1,500 these outputs were a seventh of the session pages' bytes at bench scale 1, and this limit took the site from
 * 651 to 612 MB.
 */
export const LOOKUP_PAGE_CHARS = 600;
export const INLINE_IMAGE_MAX_BYTES = 1_000_000;

/** The argument a call is known by, in every assistant's spelling (the first present is shown). */
const HEADLINE_KEYS = [
  'file_path',
  'path',
  'filePath',
  'absolute_path',
  'target_file',
  'notebook_path',
  'command',
  'cmd',
  'pattern',
  'glob_pattern',
  'regex',
  'url',
  'query',
  'search_term',
  'description',
  'prompt',
  'intent',
  'question',
];

export function toolHeadline(call: ToolCall): string {
  const args = call.arguments_json;
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    for (const key of HEADLINE_KEYS) {
      const value = (args as Record<string, unknown>)[key];
      const text = Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(' ') : value;
      if (typeof text === 'string' && text.trim()) return shorten(text.replace(/\s+/g, ' ').trim(), 160);
    }
    const operations = (args as { operations?: unknown }).operations;
    if (Array.isArray(operations) && operations.length > 0) {
      const first = toolHeadline({ ...call, arguments_json: operations[0] });
      return operations.length > 1 ? `${first} (+${operations.length - 1})` : first;
    }
  }
  return '';
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function textOf(m: NormalizedMessage): string {
  return m.segments
    .filter((s) => s.type === 'text')
    .map((s) => s.text ?? '')
    .join('\n\n');
}

/** The first `limit` characters of a long output, ending after a whole line when one ends in their second half;
 * never between the two halves of a surrogate pair. */
function shownOutput(output: string, limit: number): string {
  const lineEnd = output.lastIndexOf('\n', limit - 1);
  if (lineEnd >= limit / 2) return output.slice(0, lineEnd + 1);
  const end = /[\uD800-\uDBFF]/.test(output[limit - 1]!) ? limit - 1 : limit;
  return output.slice(0, end);
}

function cutTo(text: string, limit: number): string {
  return text.length > limit ? shownOutput(text, limit) : text;
}

/** How much of a tool's output its page shows. */
function outputPageChars(toolName: unknown): number {
  return isLookupTool(toolName) ? LOOKUP_PAGE_CHARS : RESULT_PAGE_CHARS;
}

export function resultView(m: NormalizedMessage, call?: ToolCall): ResultView {
  const output = m.tool_call?.output ?? '';
  const limit = outputPageChars(call?.name ?? m.tool_call?.name);
  const shown = cutTo(output, limit);
  const json = m.tool_call?.output_json;
  let cut = output.length - shown.length;
  let view = toolOutputView(call, shown, json, m.metadata);
  // A command's structured stdout (Claude Code's) is shown in place of the text, and its stderr beside either:
  // each is cut the same way, and counted (the structured stdout instead of the text).
  if (view.kind === 'shell') {
    const structured = isStructuredShell(json, shown);
    const stdout = structured ? cutTo(view.stdout, limit) : view.stdout;
    const stderr = view.stderr && cutTo(view.stderr, limit);
    if (structured) cut = view.stdout.length - stdout.length;
    cut += (view.stderr?.length ?? 0) - (stderr?.length ?? 0);
    view = { ...view, stdout, stderr };
  }
  return {
    id: m.id,
    status: m.tool_call?.status ?? 'completed',
    name: m.tool_call?.name ?? 'unknown',
    output: shown,
    truncated: cut,
    images: m.segments.filter((s) => s.type === 'image'),
    view,
  };
}
