import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Writable } from 'node:stream';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { dayMarkdown } from '../report/markdown.ts';
import { dayReport } from '../report/reports.ts';
import { parseDayInput } from './dates.ts';
import { ToolInputError } from './errors.ts';
import { Logbook, type LogbookOptions } from './logbook.ts';
import { findSession } from './lookup.ts';
import { createShareLens } from '../privacy/share-lens.ts';
import { registerHistoryTools } from './tools/history.ts';
import { registerReportTools } from './tools/reports.ts';
import { registerSearchTool } from './tools/search.ts';
import { registerSessionTools, renderSession } from './tools/sessions.ts';
import { toolCallsSettled } from './tool-kit.ts';
import { sessionLine } from './describe.ts';

const INSTRUCTIONS = `agent-logbook: the local history of the user's coding assistants (Claude Code, Codex CLI, Amazon Q / Kiro), \
collected into one archive. Read-only.
- "What did I do yesterday / write my 日報": day_report, then get_history_by_date for the conversations.
- "What did we do in this repository": get_history_by_project, or list_sessions with project.
- "Find the session where …": search, then get_session with the session id (and offset of the hit).
- Figures: stats, week_report.
Days are calendar days in the server's time zone. Answers are cut to max_chars and say how to get the rest.`;

export interface McpServeOptions extends Omit<LogbookOptions, 'share' | 'log'> {
  share: boolean;
}

function packageVersion(): string {
  for (const up of ['../../package.json', '../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent-logbook' && pkg.version) return pkg.version;
    } catch {
      // Not here: the bundle lives one level deeper than the sources.
    }
  }
  return '0.0.0';
}

export function createLogbookServer(logbook: Logbook, log: (line: string) => void): McpServer {
  const server = new McpServer(
    { name: 'agent-logbook', title: 'Agent logbook', version: packageVersion() },
    { instructions: INSTRUCTIONS },
  );
  registerSessionTools(server, logbook, log);
  registerHistoryTools(server, logbook, log);
  registerSearchTool(server, logbook, log);
  registerReportTools(server, logbook, log);

  server.registerResource(
    'session',
    new ResourceTemplate('logbook://session/{source}/{id}', {
      list: async () => {
        const snapshot = await logbook.snapshot();
        const recent = [...snapshot.summaries].sort((a, b) => b.endedAt.localeCompare(a.endedAt)).slice(0, 50);
        return {
          resources: recent.map((s) => ({
            uri: sessionUri(s.source, s.sessionId),
            name: s.title || s.id,
            description: sessionLine(s, logbook.timeZone).slice(2),
            mimeType: 'text/plain',
          })),
        };
      },
    }),
    {
      title: 'A session of the logbook',
      description:
        'One conversation as text (the first page, tool calls included; get_session pages through the rest).',
      mimeType: 'text/plain',
    },
    async (uri, variables) => {
      const snapshot = await logbook.snapshot();
      const id = decodeURIComponent(String(variables.id));
      const summary = findSession(snapshot, `${String(variables.source)}/${id}`);
      const result = await renderSession(logbook, summary, 'get_session', { session: summary.id }, true);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text }] };
    },
  );

  server.registerPrompt(
    'daily_report',
    {
      title: 'Daily report (日報)',
      description: "Write a daily report of a day's work with the coding assistants, from the logbook.",
      argsSchema: {
        date: z.string().optional().describe('today (default), yesterday or YYYY-MM-DD'),
        language: z.string().optional().describe('The language to write in (default: the language of the prompts).'),
      },
    },
    async ({ date, language }) => {
      const snapshot = await logbook.snapshot();
      let day: string;
      try {
        day = parseDayInput(date ?? 'today', logbook.timeZone);
      } catch (error) {
        if (error instanceof ToolInputError) throw new Error(error.message);
        throw error;
      }
      const report = dayMarkdown(dayReport(snapshot.days, day, logbook.timeZone));
      return {
        description: `Daily report for ${day}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                `Write my daily report (日報) for ${day}${language ? ` in ${language}` : ''}: what I worked on per project, ` +
                'what got done, what is still open, and anything worth noting for tomorrow. Keep it short and factual. ' +
                `Here is the day's report from agent-logbook:\n\n${report}\n` +
                `For what was actually said, call get_history_by_date with since "${day}" (and get_session for a single ` +
                'session). Do not invent work that the history does not show.',
            },
          },
        ],
      };
    },
  );
  return server;
}

export function sessionUri(source: string, sessionId: string): string {
  return `logbook://session/${source}/${encodeURIComponent(sessionId)}`;
}

/** Serves MCP on stdin/stdout until the client goes away. Nothing but JSON-RPC is written to stdout. */
export async function runMcpServer(options: McpServeOptions, stderr: (text: string) => void): Promise<void> {
  const log = (line: string) => stderr(`agent-logbook mcp: ${line}\n`);
  // stdout carries the protocol and nothing else: the transport gets stdout's own write, and anything else
  // written there (a library's console.log, a worker thread's output, which Node pipes through
  // process.stdout) goes to stderr instead.
  const writeProtocol = process.stdout.write.bind(process.stdout);
  const protocolOut = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeProtocol(chunk, (error) => done(error ?? null));
    },
  });
  process.stdout.write = ((...args: Parameters<typeof process.stderr.write>) =>
    process.stderr.write(...args)) as typeof process.stdout.write;
  for (const method of ['log', 'info', 'debug', 'warn'] as const) {
    console[method] = (...args: unknown[]) => console.error(...args);
  }
  const logbook = new Logbook({
    ...options,
    share: options.share
      ? createShareLens({ home: os.homedir(), extraHomes: options.home === os.homedir() ? [] : [options.home] })
      : undefined,
    log,
  });
  const server = createLogbookServer(logbook, log);
  const transport = new StdioServerTransport(process.stdin, protocolOut);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // Answer what was asked before the client closed its end, then stop.
    const finish = () =>
      void toolCallsSettled()
        // The protocol sends a result a few promise steps after the tool returns it.
        .then(() => new Promise((next) => setImmediate(next)))
        .then(() => server.close());
    process.stdin.once('end', finish);
    process.stdin.once('close', finish);
    process.stdout.once('error', () => void server.close());
  });
  await server.connect(transport);
  log(
    `serving ${options.dataDir} on stdio (days in ${options.timeZone}${options.share ? ', shared: redacted and anonymized' : ''})`,
  );
  // The first collect runs while the client starts up; the first tool call waits for it.
  void logbook.refresh();
  await closed;
  await logbook.idle();
}
