import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Session } from '../../model/session.ts';
import { plainTitle } from '../../model/title.ts';
import { NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import type { SourceContext } from '../source.ts';
import { QwenNormalizer } from './normalize.ts';
import { isObject, str, type QwenRecord } from './schema.ts';

/** An older session is one JSON document, rewritten whole on each message; past this size it is not parsed. */
export const MAX_LEGACY_BYTES = 64 * 1024 * 1024;

/**
 * A session in the layout Qwen Code had before its own JSONL recorder (QwenLM/qwen-code#1100 dropped it):
 * Gemini CLI's `tmp/<sha256 of the project path>/chats/session-<time>-<id8>.json`, `{sessionId, projectHash,
 * startTime, lastUpdated, messages: [{id, timestamp, type: user | gemini | info | warning | error, content,
 * thoughts?, toolCalls?, tokens?, model?}]}`. Each message is turned into the records the current format would
 * have written (a call's result into a `tool_result` record), so one normalizer reads both; message `i` counts
 * as line `i + 1`.
 */
export async function readLegacySession(
  file: string,
  cwds: readonly string[],
  ctx: SourceContext,
): Promise<Session | undefined> {
  let doc: unknown;
  try {
    const size = (await fs.stat(file)).size;
    if (size > MAX_LEGACY_BYTES) {
      ctx.warn({ file, message: `an older .json session of ${size} bytes is too large to parse at once; skipped` });
      return undefined;
    }
    const handle = await openRegular(file);
    let text: string;
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    doc = JSON.parse(text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code ?? '';
    if (error instanceof SyntaxError) {
      ctx.warn({ file, message: `not valid JSON (${error.message}); the CLI rewrote this file whole; skipped` });
    } else {
      ctx.warn({ file, message: `${readFailure(error)}; skipped` });
      if (error instanceof NotRegularFileError || ['EACCES', 'EPERM'].includes(code)) ctx.unavailable?.(file);
    }
    return undefined;
  }
  if (!isObject(doc) || !Array.isArray(doc.messages)) {
    ctx.warn({ file, message: 'not a session object (`{sessionId, messages}`); skipped' });
    return undefined;
  }
  const n = new QwenNormalizer(file);
  const toolPaths: string[] = [];
  doc.messages.forEach((m, i) => {
    if (!isObject(m)) {
      ctx.warn({ file, line: i + 1, message: `messages[${i}] is not an object; skipped` });
      return;
    }
    for (const record of recordsOf(m, toolPaths)) n.add(record, i + 1);
  });
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
  } catch {
    mtime = new Date(0).toISOString();
  }
  const messages = n.finish(str(doc.startTime) ?? mtime);
  if (messages.length === 0) return undefined;
  const f = n.findings;
  const sessionId = str(doc.sessionId) ?? path.basename(file, '.json');
  const times = messages
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  // The user's typed text comes before the files an `@` reference added.
  const first = f.firstPrompt?.split('\n--- Content from referenced files ---')[0];
  const title = str(doc.summary)?.trim() || plainTitle(first ?? '') || `Session ${sessionId.slice(0, 8)}`;
  const hash = str(doc.projectHash) ?? path.basename(path.dirname(path.dirname(file)));
  return {
    source: 'qwen-code',
    sessionId,
    title,
    cwd: cwdOf(hash, [...cwds, ...toolPaths]),
    startedAt: times[0] ?? mtime,
    endedAt: times.at(-1) ?? mtime,
    models: [...f.models].sort(),
    files: [file],
    messages,
    subagents: [],
    warnings: [],
  };
}

/** One older message as the records the JSONL recorder writes. */
function recordsOf(m: Record<string, unknown>, toolPaths: string[]): QwenRecord[] {
  const base = { uuid: str(m.id), timestamp: str(m.timestamp) };
  const parts = partsOf(m.content);
  if (m.type === 'user') return [{ ...base, type: 'user', message: { role: 'user', parts } }];
  if (m.type === 'info' || m.type === 'warning' || m.type === 'error') {
    const text = parts.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('\n');
    return [{ ...base, type: 'system', subtype: m.type, systemPayload: { displayText: text } }];
  }
  if (m.type !== 'gemini') return [m as QwenRecord];
  const thoughts = (Array.isArray(m.thoughts) ? m.thoughts : [])
    .filter(isObject)
    .map((t) => ({ text: [str(t.subject), str(t.description)].filter(Boolean).join('\n\n'), thought: true }))
    .filter((t) => t.text);
  const calls = (Array.isArray(m.toolCalls) ? m.toolCalls : []).filter(isObject);
  const out: QwenRecord[] = [
    {
      ...base,
      type: 'assistant',
      ...(str(m.model) ? { model: m.model as string } : {}),
      message: {
        role: 'model',
        parts: [
          ...thoughts,
          ...parts,
          ...calls.map((c) => ({ functionCall: { id: str(c.id), name: str(c.name), args: c.args ?? {} } })),
        ],
      },
      ...(isObject(m.tokens) ? { usageMetadata: m.tokens } : {}),
    },
  ];
  for (const c of calls) {
    toolPaths.push(...argPaths(c.args));
    const status = c.status === 'success' || c.status === 'error' || c.status === 'cancelled' ? c.status : undefined;
    if (!status && c.result === undefined) continue; // still running when the file was last written
    const responses = (Array.isArray(c.result) ? c.result : []).filter(
      (p) => isObject(p) && isObject(p.functionResponse),
    );
    out.push({
      uuid: undefined,
      timestamp: str(c.timestamp) ?? base.timestamp,
      type: 'tool_result',
      message: {
        role: 'user',
        parts: responses.length
          ? responses
          : [{ functionResponse: { id: str(c.id), name: str(c.name), response: {} } }],
      },
      toolCallResult: { callId: str(c.id), status: status ?? 'success', resultDisplay: c.resultDisplay },
    });
  }
  return out;
}

/** A `PartListUnion` (a string, a part, a list of them) as a list of parts. */
function partsOf(content: unknown): unknown[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? { text: p } : p));
  return content === undefined || content === null ? [] : [content];
}

const PATH_KEYS = ['file_path', 'absolute_path', 'path', 'dir_path', 'directory'];

function argPaths(args: unknown): string[] {
  if (!isObject(args)) return [];
  const paths = PATH_KEYS.map((k) => args[k]);
  if (Array.isArray(args.paths)) paths.push(...args.paths);
  return paths.filter((p): p is string => typeof p === 'string' && (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p)));
}

/** The folder whose SHA-256 is the project hash: a known project folder, or a parent of a path the calls named;
 * else the hash itself. */
function cwdOf(hash: string, candidates: string[]): string {
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const p = /^[A-Za-z]:[\\/]/.test(candidate) ? path.win32 : path.posix;
    for (let dir = candidate; !seen.has(dir); dir = p.dirname(dir)) {
      seen.add(dir);
      if (createHash('sha256').update(dir).digest('hex') === hash) return dir;
    }
  }
  return hash;
}
