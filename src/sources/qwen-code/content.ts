import type { TokenUsage } from '../../model/message.ts';
import { count, isObject, str, type QwenUsage } from './schema.ts';

/** A `Content`'s parts (`message.parts`); a bare string or part is taken as one part. */
export function partsOf(message: unknown): unknown[] {
  if (!isObject(message)) return [];
  const parts = message.parts;
  if (Array.isArray(parts)) return parts;
  return parts === undefined || parts === null ? [] : [parts];
}

/** The answer's text: text parts joined, thoughts left out; other parts (an image, a file) named in brackets, so
 * nothing passes silently. Function calls and responses are left to the caller. */
export function partsText(parts: unknown[]): string {
  const out: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') out.push(part);
    else if (!isObject(part) || part.thought === true) continue;
    else if (typeof part.text === 'string') out.push(part.text);
    else if (isObject(part.functionCall) || isObject(part.functionResponse)) continue;
    else if (isObject(part.inlineData)) out.push(`[${str(part.inlineData.mimeType) ?? 'inline data'}]`);
    else if (isObject(part.fileData)) out.push(`[file ${str(part.fileData.fileUri) ?? ''}]`.replace(' ]', ']'));
    else out.push(JSON.stringify(part));
  }
  return out.join('\n');
}

/** The thought parts' text (`{text, thought: true}`: a reasoning model's reasoning). */
export function thoughtsText(parts: unknown[]): string[] {
  return parts
    .filter((p): p is Record<string, unknown> => isObject(p) && p.thought === true && typeof p.text === 'string')
    .map((p) => p.text as string)
    .filter((t) => t.trim() !== '');
}

/** A function response's text: `{output}`, `{error}`, `{content}`, else the whole response as JSON. */
export function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (!isObject(response)) return response === undefined ? '' : JSON.stringify(response);
  if (typeof response.output === 'string') return response.output;
  if (typeof response.error === 'string') return response.error;
  if (isObject(response.error) && typeof response.error.message === 'string') return response.error.message;
  if (typeof response.content === 'string') return response.content;
  return JSON.stringify(response, null, 2);
}

/** A tool's `resultDisplay` as text: a string, a diff (`{fileDiff}`), else JSON. */
export function displayText(display: unknown): string {
  if (typeof display === 'string') return display;
  if (isObject(display) && typeof display.fileDiff === 'string') return display.fileDiff;
  return display === undefined || display === null ? '' : JSON.stringify(display, null, 2);
}

/**
 * One request's usage. The prompt count includes the cached tokens, so input = prompt − cached (+ tool-use
 * prompt), cacheRead = cached. Whether the thoughts are inside the candidates depends on the provider: Gemini
 * counts them apart (prompt + candidates + thoughts = total), Qwen's OpenAI-compatible converter passes
 * `completion_tokens` (reasoning included) as candidates and `reasoning_tokens` as thoughts (prompt + candidates
 * = total). The total tells which: thoughts are added to the output only when the total has room for them.
 */
export function usageOf(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw)) return undefined;
  const u = raw as QwenUsage;
  const summary = u.promptTokenCount === undefined && u.candidatesTokenCount === undefined && u.input !== undefined;
  const prompt = count(summary ? u.input : u.promptTokenCount);
  const candidates = count(summary ? u.output : u.candidatesTokenCount);
  const cached = Math.min(count(summary ? u.cached : u.cachedContentTokenCount), prompt || Infinity);
  const thoughts = count(summary ? u.thoughts : u.thoughtsTokenCount);
  const tool = count(summary ? u.tool : u.toolUsePromptTokenCount);
  const total = count(summary ? u.total : u.totalTokenCount);
  const apart = thoughts > 0 && total >= prompt + tool + candidates + thoughts;
  const usage: TokenUsage = {
    input: Math.max(0, prompt - cached) + tool,
    output: candidates + (apart ? thoughts : 0),
    cacheRead: cached,
    cacheCreation: 0,
  };
  return usage.input + usage.output + usage.cacheRead > 0 ? usage : undefined;
}
