import type { MessageMetadata, MessageSegment } from '../../model/message.ts';
import type { ContentItem, EventPayload } from './schema.ts';

/** Content of Codex items and tool outputs in their many shapes (FORMATS.md §2.5, §2.6). */

export function contentSegments(
  content: ContentItem[] | string | null | undefined,
  channel: 'input' | 'output',
): MessageSegment[] {
  if (typeof content === 'string') return [{ channel, type: 'text', format: `${channel}_text`, text: content }];
  if (!Array.isArray(content)) return [];
  const segments: MessageSegment[] = [];
  for (const c of content) {
    if (!c || typeof c !== 'object') continue;
    const format = c.type ?? 'unknown';
    if (format === 'input_image' || format === 'output_image' || format === 'image') {
      segments.push(imageSegment(c.image_url, channel, format));
    } else if (typeof c.text === 'string') {
      segments.push({ channel: format.startsWith('output') ? 'output' : channel, type: 'text', format, text: c.text });
    } else if (format === 'encrypted_content') {
      segments.push({ channel, type: 'text', format: 'redacted_thinking', text: '' });
    } else if (format === 'refusal' && typeof (c as { refusal?: unknown }).refusal === 'string') {
      segments.push({ channel, type: 'text', format, text: (c as { refusal: string }).refusal });
    }
  }
  return segments;
}

const DATA_URL = /^data:([^;,]+)?(;base64)?,/;

/** An image item. `data:` URLs stay in the data whole; the page inlines only small ones. */
export function imageSegment(url: unknown, channel: MessageSegment['channel'], format: string): MessageSegment {
  if (typeof url !== 'string' || !url) {
    return { channel, type: 'image', format, media: { omitted: 'no image data in the log' } };
  }
  const data = DATA_URL.exec(url);
  if (data) {
    const payload = url.length - data[0].length;
    return {
      channel,
      type: 'image',
      format,
      media: {
        media_type: data[1] ?? 'application/octet-stream',
        data_uri: url,
        size_bytes: data[2] ? Math.floor((payload * 3) / 4) - padding(url) : payload,
      },
    };
  }
  if (/^https?:\/\//.test(url)) return { channel, type: 'image', format, media: { url } };
  return { channel, type: 'image', format, media: { omitted: `image reference ${url.slice(0, 200)}` } };
}

function padding(base64: string): number {
  return base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
}

export function argumentsOf(args: unknown): { text: string; json?: unknown; invalid?: boolean } {
  if (args === undefined || args === null) return { text: '' };
  if (typeof args !== 'string') return { text: JSON.stringify(args, null, 2), json: args };
  const trimmed = args.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return { text: args };
  try {
    return { text: args, json: JSON.parse(args) };
  } catch {
    return { text: args, invalid: true };
  }
}

interface ParsedOutput {
  text: string;
  json?: unknown;
  segments: MessageSegment[];
  metadata: MessageMetadata;
  error?: boolean;
  /** An object output that is neither content items nor the legacy `{content, success}`. */
  shapeUnknown?: boolean;
}

const EXIT_CODE = /^Exit code: (-?\d+)/m;
const PROCESS_EXIT = /Process exited with code (-?\d+)/;
const WALL_TIME = /^Wall time: ([\d.]+) seconds/m;

/** A tool output in any of its forms (FORMATS.md §2.5): JSON string, plain text, content array, object. */
export function outputOf(output: unknown): ParsedOutput {
  const metadata: MessageMetadata = {};
  if (Array.isArray(output) || (output && typeof output === 'object' && 'type' in output)) {
    const items = (Array.isArray(output) ? output : [output]) as ContentItem[];
    const texts: string[] = [];
    const segments: MessageSegment[] = [];
    for (const c of items) {
      if (typeof c?.text === 'string') texts.push(c.text);
      else if (c?.type === 'input_image' || c?.type === 'output_image') {
        texts.push('[image]');
        segments.push(imageSegment(c.image_url, 'output', c.type));
      }
    }
    textDetails(texts.join('\n'), metadata);
    return { text: texts.join('\n'), segments, metadata };
  }
  if (output && typeof output === 'object') {
    // Legacy `{content, success}`.
    const o = output as { content?: unknown; success?: boolean };
    const text = typeof o.content === 'string' ? o.content : JSON.stringify(output, null, 2);
    if (o.success === false) metadata.success = false;
    return {
      text,
      json: output,
      segments: [],
      metadata,
      error: o.success === false,
      ...(typeof o.content === 'string' ? {} : { shapeUnknown: true }),
    };
  }
  const text = typeof output === 'string' ? output : output === undefined || output === null ? '' : String(output);
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const json = JSON.parse(trimmed) as {
        output?: unknown;
        metadata?: { exit_code?: unknown; duration_seconds?: unknown };
      };
      if (json && typeof json === 'object' && !Array.isArray(json) && typeof json.output === 'string') {
        // ≤0.4x: `{"output": "…", "metadata": {"exit_code": 0, "duration_seconds": 0.0}}`
        if (typeof json.metadata?.exit_code === 'number') metadata.exit_code = json.metadata.exit_code;
        if (typeof json.metadata?.duration_seconds === 'number') {
          metadata.duration_ms = Math.round(json.metadata.duration_seconds * 1000);
        }
        return { text: json.output, json, segments: [], metadata };
      }
      return { text, json, segments: [], metadata };
    } catch {
      // not JSON after all: plain text
    }
  }
  textDetails(text, metadata);
  return { text, segments: [], metadata };
}

/** Exit code and wall time from the plain-text and unified-exec output forms (an exit code ≠ 0 is an error). */
function textDetails(text: string, metadata: MessageMetadata): void {
  const exit = EXIT_CODE.exec(text) ?? PROCESS_EXIT.exec(text);
  if (exit) metadata.exit_code = Number(exit[1]);
  const wall = WALL_TIME.exec(text);
  if (wall) metadata.duration_ms = Math.round(Number(wall[1]) * 1000);
}

function durationMs(duration: unknown): number | undefined {
  if (typeof duration === 'number') return Math.round(duration * 1000);
  if (duration && typeof duration === 'object') {
    const d = duration as { secs?: number; nanos?: number };
    if (typeof d.secs === 'number') return Math.round(d.secs * 1000 + (d.nanos ?? 0) / 1e6);
  }
  if (typeof duration === 'string') {
    const m = /^([\d.]+)\s*(ms|s|m)?$/.exec(duration.trim());
    if (m) return Math.round(Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60000 : 1000));
  }
  return undefined;
}

/** What an `*_end` event adds to its call's result: exit code, duration, diff, error. */
export function endDetails(
  kind: string,
  p: EventPayload,
): { metadata: MessageMetadata; output?: string; error?: boolean } {
  const metadata: MessageMetadata = { end_event: kind };
  const duration = durationMs(p.duration) ?? (typeof p.duration_ms === 'number' ? p.duration_ms : undefined);
  if (duration !== undefined) metadata.duration_ms = duration;
  let error = false;
  let output: string | undefined;
  switch (kind) {
    case 'exec_command_end':
      if (typeof p.exit_code === 'number') {
        metadata.exit_code = p.exit_code;
        error = p.exit_code !== 0;
      }
      output = p.aggregated_output ?? p.formatted_output ?? [p.stdout, p.stderr].filter(Boolean).join('\n');
      break;
    case 'patch_apply_end': {
      if (p.success === false) error = true;
      const changes = p.changes && typeof p.changes === 'object' ? p.changes : {};
      metadata.files = Object.entries(changes).map(([path, c]) => ({
        path,
        type: (c as { type?: string })?.type ?? 'update',
      }));
      const diff = diffOf(changes);
      if (diff) metadata.diff = diff;
      output = [p.stdout, p.stderr].filter(Boolean).join('\n');
      break;
    }
    case 'mcp_tool_call_end': {
      const result = p.result as { Ok?: { content?: ContentItem[]; isError?: boolean }; Err?: unknown } | undefined;
      if (result?.Err !== undefined || result?.Ok?.isError) error = true;
      if (result?.Ok?.content) output = outputOf(result.Ok.content).text;
      else if (result?.Err !== undefined)
        output = typeof result.Err === 'string' ? result.Err : JSON.stringify(result.Err);
      if (p.invocation?.server) metadata.mcp_server = p.invocation.server;
      break;
    }
    case 'view_image_tool_call':
      if (typeof (p as { path?: unknown }).path === 'string') metadata.path = (p as { path: string }).path;
      break;
    case 'web_search_end':
      output = typeof (p as { query?: unknown }).query === 'string' ? (p as { query: string }).query : undefined;
      break;
    case 'dynamic_tool_call_response':
      if (p.success === false) error = true;
      break;
  }
  if (p.status === 'failed' || p.status === 'error') error = true;
  return { metadata, output, error };
}

function diffOf(changes: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [file, change] of Object.entries(changes)) {
    const c = (change ?? {}) as { type?: string; unified_diff?: string; content?: string; move_path?: string | null };
    if (typeof c.unified_diff === 'string') parts.push(`--- ${file}\n+++ ${c.move_path ?? file}\n${c.unified_diff}`);
    else if (c.type === 'add' && typeof c.content === 'string') {
      parts.push(`--- /dev/null\n+++ ${file}\n${c.content.replace(/^/gm, '+')}`);
    } else if (c.type === 'delete') parts.push(`--- ${file}\n+++ /dev/null`);
  }
  return parts.join('\n');
}
