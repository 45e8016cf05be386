import type { NormalizedMessage, TokenUsage } from '../model/message.ts';
import type { ActivitySlot, ConversationPattern, Session, SessionStats } from '../model/session.ts';

export function emptyTokens(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
}

export function addTokens(into: TokenUsage, add: TokenUsage): void {
  into.input += add.input;
  into.output += add.output;
  into.cacheRead += add.cacheRead;
  into.cacheCreation += add.cacheCreation;
}

export function totalTokens(t: TokenUsage): number {
  return t.input + t.output + t.cacheRead + t.cacheCreation;
}

/** The UTC start of the 15-minute slot holding `iso`, as `YYYY-MM-DDTHH:MM`. */
export function slotOf(iso: string): string {
  const minutes = Number(iso.slice(14, 16));
  return `${iso.slice(0, 14)}${String(minutes - (minutes % 15)).padStart(2, '0')}`;
}

interface Entry {
  responseId: string;
  timestamp: string;
  toolCalls: number;
}

/** Entries (model responses) of one thread in order, built from `metadata.response_id`. */
function entriesOf(messages: NormalizedMessage[]): Entry[] {
  const entries = new Map<string, Entry>();
  for (const m of messages) {
    const responseId = m.metadata?.response_id;
    if (!responseId || m.metadata?.kind === 'api_error') continue;
    if (m.source_type !== 'message' && m.source_type !== 'tool_call') continue;
    let entry = entries.get(responseId);
    if (!entry) {
      entry = { responseId, timestamp: m.timestamp, toolCalls: 0 };
      entries.set(responseId, entry);
    }
    if (m.source_type === 'tool_call') entry.toolCalls += 1;
  }
  return [...entries.values()];
}

/**
 * The pattern of a conversation, from its main thread (seed 000's definitions):
 * `incomplete` when no response came or the last response asked for tools; otherwise by tool rounds.
 */
export function conversationPattern(messages: NormalizedMessage[]): ConversationPattern {
  const entries = entriesOf(messages);
  if (entries.length === 0) return 'incomplete';
  const last = entries[entries.length - 1]!;
  if (last.toolCalls > 0) return 'incomplete';
  let lastEntryIndex = -1;
  let lastPromptIndex = -1;
  messages.forEach((m, i) => {
    if (m.metadata?.response_id === last.responseId) lastEntryIndex = i;
    if (m.metadata?.kind === 'prompt') lastPromptIndex = i;
  });
  if (lastPromptIndex > lastEntryIndex) return 'incomplete';
  const rounds = entries.filter((e) => e.toolCalls > 0).length;
  return rounds === 0 ? 'simple' : rounds === 1 ? 'single_tool' : 'multi_tool';
}

/**
 * Per-session statistics. Entries, tool uses and tokens include subagent work (it is the session's
 * work); the pattern describes the main conversation.
 */
export function sessionStats(session: Pick<Session, 'messages' | 'subagents'>): SessionStats {
  const threads = [session.messages, ...session.subagents.map((s) => s.messages)];
  const stats: SessionStats = {
    entries: 0,
    toolRounds: 0,
    toolUses: 0,
    toolUsesByName: {},
    toolErrors: 0,
    toolErrorsByName: {},
    prompts: 0,
    messages: 0,
    pattern: conversationPattern(session.messages),
    tokens: emptyTokens(),
    activity: {},
  };
  const slot = (iso: string): ActivitySlot => {
    const key = iso ? slotOf(iso) : 'unknown';
    return (stats.activity[key] ??= { entries: 0, toolUses: 0, toolUsesByName: {}, prompts: 0, tokens: emptyTokens() });
  };
  for (const messages of threads) {
    for (const entry of entriesOf(messages)) {
      stats.entries += 1;
      if (entry.toolCalls > 0) stats.toolRounds += 1;
      slot(entry.timestamp).entries += 1;
    }
    for (const m of messages) {
      if (m.role !== 'meta') stats.messages += 1;
      if (m.metadata?.kind === 'prompt' && messages === session.messages) {
        stats.prompts += 1;
        slot(m.timestamp).prompts += 1;
      }
      if (m.metadata?.usage) {
        addTokens(stats.tokens, m.metadata.usage);
        addTokens(slot(m.timestamp).tokens, m.metadata.usage);
      }
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call) {
        stats.toolUses += 1;
        stats.toolUsesByName[call.name] = (stats.toolUsesByName[call.name] ?? 0) + 1;
        const at = slot(m.timestamp);
        at.toolUses += 1;
        at.toolUsesByName[call.name] = (at.toolUsesByName[call.name] ?? 0) + 1;
        if (call.status === 'error') {
          stats.toolErrors += 1;
          stats.toolErrorsByName[call.name] = (stats.toolErrorsByName[call.name] ?? 0) + 1;
        }
      }
    }
  }
  return stats;
}
