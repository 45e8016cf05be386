import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Session, SubagentThread } from '../../model/session.ts';
import { saneIsoFromText } from '../../util/time.ts';
import type { SourceContext } from '../source.ts';
import { GeminiNormalizer } from './normalize.ts';
import type { SessionFiles } from './paths.ts';
import type { ProjectDirs } from './project.ts';
import { readConversation } from './read.ts';

/** One main file and its subagents as one session; subagent files whose parent file is gone, one session each. */
export async function readSession(s: SessionFiles, dirs: ProjectDirs, ctx: SourceContext): Promise<Session[]> {
  const threads: SubagentThread[] = [];
  const alone: Session[] = [];
  const main = s.main ? await readOne(s.main, s.projectDir, dirs, ctx) : undefined;
  for (const file of s.subagents) {
    const sub = await readOne(file, s.projectDir, dirs, ctx, main ? '' : undefined);
    if (!sub) continue;
    if (!main) {
      sub.messages[0]!.metadata = { ...sub.messages[0]!.metadata, subagent_of: s.parentId, parent_missing: true };
      alone.push(sub);
      continue;
    }
    threads.push({ agentId: sub.sessionId, agentType: 'subagent', file, messages: sub.messages });
    main.files.push(file);
    main.models = [...new Set([...main.models, ...sub.models])].sort();
  }
  if (main) main.subagents = threads;
  return main ? [main] : alone;
}

/** One file as a session (`asThread`: ids prefixed with the file's session id, to live inside its parent's). */
async function readOne(
  file: string,
  projectDir: string,
  dirs: ProjectDirs,
  ctx: SourceContext,
  asThread?: string,
): Promise<Session | undefined> {
  const conversation = await readConversation(file, ctx.warn);
  if (!conversation) {
    ctx.unavailable?.(file);
    return undefined;
  }
  const meta = conversation.meta;
  const sessionId = meta.sessionId ?? path.basename(file).replace(/\.jsonl?$/, '');
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
  } catch {
    mtime = new Date(0).toISOString();
  }
  const n = new GeminiNormalizer(file, asThread === undefined ? '' : `${sessionId}:`);
  const messages = n.run(conversation, mtime);
  if (messages.length === 0) return undefined; // a header alone: a session started and left empty
  const times = messages
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  const findings = n.findings;
  const title = meta.summary?.trim() || oneLine(findings.firstPrompt ?? '') || `Session ${sessionId.slice(0, 8)}`;
  return {
    source: 'gemini-cli',
    sessionId,
    title,
    cwd: await dirs.cwdOf(projectDir, meta, findings),
    startedAt: times[0] ?? saneIsoFromText(meta.startTime) ?? mtime,
    endedAt: times.at(-1) ?? saneIsoFromText(meta.lastUpdated) ?? mtime,
    models: [...findings.models].sort(),
    files: [file],
    messages,
    subagents: [],
    warnings: [],
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
