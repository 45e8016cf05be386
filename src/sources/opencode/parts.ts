import type { MessageSegment, TokenUsage, ToolStatus } from '../../model/message.ts';
import { isObject, num, str, type OcPart, type OcTokens, type OcToolState } from './schema.ts';

/**
 * OpenCode's tokens (`Session.getUsage` in `packages/opencode/src/session/index.ts`): `input` without the cached
 * part, `cache.read` / `cache.write` apart, `reasoning` apart from `output` (since AI SDK v6 `output` is
 * `outputTokens - reasoningTokens`). Reasoning is billed as output, so it is counted in `output` here.
 */
export function usageOf(tokens: OcTokens | undefined): TokenUsage | undefined {
  if (!isObject(tokens)) return undefined;
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  const n = (v: unknown) => Math.max(0, num(v) ?? 0);
  const usage: TokenUsage = {
    input: n(tokens.input),
    output: n(tokens.output) + n(tokens.reasoning),
    cacheRead: n(cache.read),
    cacheCreation: n(cache.write),
  };
  return usage.input + usage.output + usage.cacheRead + usage.cacheCreation > 0 ? usage : undefined;
}

export function reasoningOf(tokens: OcTokens | undefined): number {
  return isObject(tokens) ? Math.max(0, num(tokens.reasoning) ?? 0) : 0;
}

/** A tool part's state as a call status. A refused permission is a refusal, not an error. */
export function toolStatusOf(state: OcToolState): ToolStatus {
  if (state.status === 'completed') return 'completed';
  if (state.status === 'error') {
    const error = textOf(state.error);
    return /rejected permission|permission (was )?denied|user dismissed|user rejected/i.test(error)
      ? 'rejected'
      : 'error';
  }
  return 'unanswered';
}

/** A tool's output (completed) or error text (error); undefined while it is pending or running. */
export function toolOutputOf(state: OcToolState): string | undefined {
  if (state.status === 'completed') return textOf(state.output);
  if (state.status === 'error') return textOf(state.error);
  return undefined;
}

/** The tool's input: the parsed object, or (a pending call) the raw text the model was still streaming. */
export function toolInputOf(state: OcToolState): unknown {
  if (state.input !== undefined && !(isObject(state.input) && Object.keys(state.input).length === 0 && state.raw))
    return state.input;
  if (typeof state.raw === 'string' && state.raw) {
    try {
      return JSON.parse(state.raw) as unknown;
    } catch {
      return state.raw;
    }
  }
  return state.input ?? {};
}

/** The child session a `task` call ran in (`state.metadata.sessionId`). */
export function taskSessionOf(part: OcPart): string | undefined {
  const meta = isObject(part.state) && isObject(part.state.metadata) ? part.state.metadata : undefined;
  return str(meta?.sessionId) ?? str(meta?.sessionID);
}

export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (isObject(value) && typeof value.text === 'string') return value.text;
  if (isObject(value) && isObject(value.data) && typeof value.data.message === 'string') return value.data.message;
  if (isObject(value) && typeof value.message === 'string') return value.message;
  return JSON.stringify(value, null, 2);
}

/** A `file` part (an attached image or file) as a segment. */
export function fileSegment(part: OcPart, channel: 'input' | 'output'): MessageSegment {
  const mime = str(part.mime);
  const url = str(part.url);
  if (mime?.startsWith('image/')) {
    return {
      channel,
      type: 'image',
      format: 'file',
      media: {
        media_type: mime,
        ...(url?.startsWith('data:') ? { data_uri: url } : url ? { url } : {}),
      },
      ...(part.filename ? { text: String(part.filename) } : {}),
    };
  }
  const name = str(part.filename) ?? (url?.startsWith('file://') ? url.slice('file://'.length) : undefined) ?? 'file';
  return { channel, type: 'text', format: 'file', text: `[${mime ?? 'file'}] ${name}` };
}

/** The files a `patch` part lists. */
export function patchFiles(part: OcPart): string[] {
  return Array.isArray(part.files) ? part.files.filter((f): f is string => typeof f === 'string') : [];
}
