import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { MessageDraft, MessageSegment, NormalizedMessage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import { NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { contextDirectories, partsText, promptKey, REFERENCED } from './content.ts';
import type { Findings } from './normalize.ts';
import { CHECKPOINT_FILE } from './paths.ts';
import type { ProjectDirs } from './project.ts';
import { MAX_JSON_BYTES } from './read.ts';
import { isObject, str } from './schema.ts';
import { argPaths } from './tool-calls.ts';

/**
 * `tmp/<project>/checkpoint-<tag>.json`, written by `/chat save <tag>` (`/resume save` in newer versions;
 * `Logger.saveCheckpoint` in `packages/core/src/core/logger.ts`): the model's history as one JSON document, a list
 * of `Content` `{role: user|model, parts}` (older versions) or `{history: Content[], authType?}` (v0.16 on). No
 * times, ids, models or tokens: every message is dated by the file's mtime and marked estimated. The tag is the
 * file name's part between `checkpoint-` and `.json`, URI-encoded (`encodeTagName`).
 */

/** The first turn of a history: the environment the CLI sets up (`getInitialChatHistory`). */
const SETUP = /^\s*(?:<session_context>|<hook_context>|This is the Gemini CLI\. We are setting up the context)/;
/** Older versions answered the setup turn with this model turn. */
const SETUP_REPLY = 'Got it. Thanks for the context!';

export function tagOf(file: string): string {
  const encoded = CHECKPOINT_FILE.exec(path.basename(file))?.[1] ?? path.basename(file);
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

export interface Checkpoint {
  session: Session;
  /** The prompts typed, as `promptKey`s, in order. */
  prompts: string[];
}

interface Draft extends MessageDraft {
  record?: unknown;
}

/** One checkpoint file as a session (`checkpoint-<project folder>-<tag>`); undefined after one warning when it
 * cannot be read, or when it holds no turn past the setup. */
export async function readCheckpoint(
  file: string,
  projectDir: string,
  dirs: ProjectDirs,
  warn: WarningSink,
): Promise<Checkpoint | undefined> {
  const doc = await readDocument(file, warn);
  if (doc === undefined) return undefined;
  const history = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.history) ? doc.history : undefined;
  if (!history) {
    warn({ file, message: 'not a checkpoint (a list of {role, parts}, or {history: [...]}); skipped' });
    return undefined;
  }
  const mtime = (await fs.stat(file)).mtime.toISOString();
  const findings: Findings = { models: [], toolPaths: [], contextDirs: [] };
  const messages: NormalizedMessage[] = [];
  const prompts: string[] = [];
  const calls = new Map<string, NormalizedMessage>();
  /** Calls without an id (older histories) wait for the next response of their name. */
  const waiting = new Map<string, string[]>();
  let setup = false;
  history.forEach((content, i) => {
    const line = i + 1;
    const drafts: Draft[] = [];
    if (!isObject(content) || typeof content.role !== 'string' || !Array.isArray(content.parts)) {
      warn({ file, line, message: 'not a Content (an object with "role" and "parts"); kept as unknown' });
      drafts.push(unknown(content, typeof content));
    } else if (content.role === 'user') drafts.push(...user(content.parts, i, line));
    else if (content.role === 'model') drafts.push(...model(content.parts, i, line));
    else drafts.push(unknown(content, content.role));
    drafts.forEach((d, part) => {
      const m: NormalizedMessage = {
        id: `${mtime}#${line}${drafts.length > 1 ? `.${part}` : ''}`,
        timestamp: mtime,
        timestamp_estimated: true,
        role: d.role,
        source_type: d.source_type,
        segments: d.segments,
        ...(d.tool_call ? { tool_call: d.tool_call } : {}),
        raw: {
          event_type: isObject(content) && typeof content.role === 'string' ? content.role : 'unknown',
          file_path: file,
          line_index: line,
          ...(d.record !== undefined ? { record: d.record } : {}),
        },
        ...(d.metadata ? { metadata: d.metadata } : {}),
      };
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call) calls.set(call.call_id, m);
      if (m.source_type === 'tool_result' && call) {
        const linked = calls.get(call.call_id)?.tool_call;
        if (linked) {
          linked.status = call.status;
          linked.result_id = m.id;
        }
      }
      messages.push(m);
    });
  });

  function user(parts: unknown[], i: number, line: number): Draft[] {
    const out: Draft[] = [];
    const texts: unknown[] = [];
    parts.forEach((p, j) => {
      if (!isObject(p) || !isObject(p.functionResponse)) {
        texts.push(p);
        return;
      }
      const fr = p.functionResponse;
      const name = str(fr.name) ?? 'unknown';
      // Newer histories carry the call's id on both; older ones on the response only (the CLI made it up).
      const queue = waiting.get(name) ?? [];
      const own = str(fr.id);
      const known = own !== undefined && calls.has(own) ? own : undefined;
      const at = known === undefined ? -1 : queue.indexOf(known);
      if (at >= 0) queue.splice(at, 1);
      const id = known ?? queue.shift() ?? own ?? `ckpt-${line}-${j}`;
      const response = fr.response;
      const failed = isObject(response) && response.error !== undefined && response.output === undefined;
      out.push({
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: {
          call_id: id,
          name,
          status: failed ? 'error' : 'completed',
          output: partsText([p]),
          ...(isObject(response) ? { output_json: response } : {}),
        },
      });
    });
    if (!texts.length) return out;
    const text = partsText(texts);
    if (i === 0 && SETUP.test(text)) {
      setup = true;
      findings.contextDirs.push(...contextDirectories(text));
      out.unshift(injected(text));
      return out;
    }
    if (!text.trim()) return out;
    prompts.push(promptKey(text));
    findings.firstPrompt ??= text.split(REFERENCED)[0];
    out.unshift({
      role: 'user',
      source_type: 'message',
      segments: [{ channel: 'input', type: 'text', format: 'text', text }],
      metadata: { kind: 'prompt' },
    });
    return out;
  }

  function model(parts: unknown[], i: number, line: number): Draft[] {
    const response = `ckpt-${line}`;
    const segments: MessageSegment[] = [];
    const out: Draft[] = [];
    const flush = () => {
      if (segments.length)
        out.push({
          role: 'assistant',
          source_type: 'message',
          segments: segments.splice(0),
          metadata: { kind: 'response', response_id: response },
        });
    };
    parts.forEach((p, j) => {
      if (isObject(p) && isObject(p.functionCall)) {
        flush();
        const fc = p.functionCall;
        const name = str(fc.name) ?? 'unknown';
        const args = fc.args ?? {};
        findings.toolPaths.push(...argPaths(args));
        const id = str(fc.id) ?? `ckpt-${line}-${j}`;
        waiting.set(name, [...(waiting.get(name) ?? []), id]);
        out.push({
          role: 'tool',
          source_type: 'tool_call',
          segments: [],
          tool_call: {
            call_id: id,
            name,
            status: 'unanswered',
            arguments: typeof args === 'string' ? args : JSON.stringify(args, null, 2),
            arguments_json: args,
          },
          metadata: { kind: 'response', response_id: response },
        });
      } else if (isObject(p) && p.thought === true && typeof p.text === 'string') {
        segments.push({ channel: 'output', type: 'text', format: 'thinking', text: p.text });
      } else {
        const text = partsText([p]);
        if (text) segments.push({ channel: 'output', type: 'text', format: 'text', text });
      }
    });
    flush();
    const only = out.length === 1 ? out[0]!.segments : [];
    if (setup && i === 1 && only.length === 1 && only[0]!.text?.trim() === SETUP_REPLY) return [injected(SETUP_REPLY)];
    return out.length
      ? out
      : [
          {
            role: 'assistant',
            source_type: 'message',
            segments: [],
            metadata: { kind: 'response', response_id: response },
          },
        ];
  }

  if (!messages.some((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'tool')) {
    warn({ file, message: 'a checkpoint with no turn past the setup; skipped' });
    return undefined;
  }
  const tag = tagOf(file);
  const session: Session = {
    source: 'gemini-cli',
    sessionId: `checkpoint-${path.basename(projectDir)}-${CHECKPOINT_FILE.exec(path.basename(file))?.[1] ?? tag}`,
    title: `Checkpoint: ${tag}`,
    cwd: await dirs.cwdOf(projectDir, {}, findings),
    startedAt: mtime,
    endedAt: mtime,
    models: [],
    files: [file],
    messages,
    subagents: [],
    warnings: [],
  };
  return { session, prompts };
}

function injected(text: string): Draft {
  return {
    role: 'system',
    source_type: 'message',
    segments: [{ channel: 'system', type: 'text', format: 'text', text }],
    metadata: { kind: 'injected' },
  };
}

function unknown(record: unknown, subtype: string): Draft {
  return { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', subtype }, record };
}

/** The file as one JSON document, bounded like the `.json` sessions; undefined after one warning. */
async function readDocument(file: string, warn: WarningSink): Promise<unknown> {
  try {
    const size = (await fs.stat(file)).size;
    if (size > MAX_JSON_BYTES) {
      warn({ file, message: `a checkpoint of ${size} bytes is too large to parse at once; skipped` });
      return undefined;
    }
    const handle = await openRegular(file);
    let text: string;
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) {
      warn({ file, message: `not valid JSON (${error.message}); skipped` });
    } else {
      const known = error instanceof NotRegularFileError || (error as NodeJS.ErrnoException)?.code;
      warn({ file, message: `${known ? readFailure(error) : (error as Error).message}; skipped` });
    }
    return undefined;
  }
}
