import type { TokenUsage } from '../model/message.ts';
import { MAIN_THREAD } from '../model/body.ts';
import type { ConversationPattern, Session, SessionStats } from '../model/session.ts';
import { SessionAccumulator } from '../model/session-accumulator.ts';

export { addTokens, emptyTokens, slotOf } from '../model/session-accumulator.ts';

export function totalTokens(t: TokenUsage): number {
  return t.input + t.output + t.cacheRead + t.cacheCreation;
}

/** Per-session statistics of a session in memory (the same accumulator a streamed session goes through). */
export function sessionStats(session: Pick<Session, 'messages' | 'subagents'>): SessionStats {
  const acc = new SessionAccumulator();
  for (const m of session.messages) acc.message(MAIN_THREAD, m);
  for (const s of session.subagents) for (const m of s.messages) acc.message(s.agentId, m);
  return acc.result(session.subagents.map((s) => s.agentId)).stats;
}

export function conversationPattern(session: Pick<Session, 'messages'>): ConversationPattern {
  return sessionStats({ messages: session.messages, subagents: [] }).pattern;
}
