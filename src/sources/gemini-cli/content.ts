import { isObject, str } from './schema.ts';

/**
 * Text of a `PartListUnion` (`@google/genai`): a string, one part or a list of parts. Text parts are joined;
 * other parts are named in brackets (an image, a file, a call), so nothing passes silently.
 */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  const parts = Array.isArray(content) ? content : [content];
  const out: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') out.push(part);
    else if (isObject(part)) {
      if (part.thought === true) continue;
      if (typeof part.text === 'string') out.push(part.text);
      else if (isObject(part.functionResponse)) out.push(responseText(part.functionResponse.response));
      else if (isObject(part.inlineData)) out.push(`[${str(part.inlineData.mimeType) ?? 'inline data'}]`);
      else if (isObject(part.fileData)) out.push(`[file ${str(part.fileData.fileUri) ?? ''}]`.replace(' ]', ']'));
      else if (isObject(part.functionCall)) out.push(`[call ${str(part.functionCall.name) ?? ''}]`);
      else out.push(JSON.stringify(part));
    }
  }
  return out.join('\n');
}

/** A function response's `{output}` or `{error}`, else the whole response as JSON. */
function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (!isObject(response)) return response === undefined ? '' : JSON.stringify(response);
  if (typeof response.output === 'string') return response.output;
  if (typeof response.error === 'string') return response.error;
  if (isObject(response.error) && typeof response.error.message === 'string') return response.error.message;
  if (typeof response.content === 'string') return response.content;
  return JSON.stringify(response, null, 2);
}

/** A tool call's output: its `result` parts, else its `resultDisplay` (a string, or a diff `{fileDiff}`). */
export function toolOutput(result: unknown, display: unknown): string {
  const text = partsText(result);
  if (text) return text;
  if (typeof display === 'string') return display;
  if (isObject(display) && typeof display.fileDiff === 'string') return display.fileDiff;
  return display === undefined || display === null ? '' : JSON.stringify(display, null, 2);
}

/** The directories a `<session_context>` (first user turn) names: "Workspace Directories" (newer) or "I'm
 * currently working in the directory: …" (older). */
export function contextDirectories(text: string): string[] {
  if (!text.includes('<session_context>') && !text.includes('working in the directory')) return [];
  const dirs: string[] = [];
  const older = /I'm currently working in the directory: (.+)/.exec(text);
  if (older) dirs.push(older[1]!.trim());
  const list = /(?:Workspace Directories:\*\*|working in the following directories:)\n((?:[ \t]+- .+\n?)+)/.exec(text);
  if (list) for (const l of list[1]!.split('\n')) if (l.trim().startsWith('- ')) dirs.push(l.trim().slice(2).trim());
  return dirs.filter(Boolean);
}

/** An `@file` prompt is sent with the files' text after this marker. */
export const REFERENCED = '\n--- Content from referenced files ---';

/** What a prompt is compared by: the text before any `@file` text, spaces collapsed (`logs.json` holds what was
 * typed; the history, what was sent). */
export function promptKey(text: string): string {
  return text.split(REFERENCED)[0]!.replace(/\s+/g, ' ').trim();
}
