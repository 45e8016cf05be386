import type { SessionSummary } from '../model/session.ts';

/*
 * Reading a field from the first bytes of a JSON line written by the archive, without parsing the line: the
 * summaries index and the message files run to megabytes, mostly of parts a pass does not need.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The id of a summary line, which starts `{"id":"…"` (written so); anything else is parsed whole. */
export function leadingId(line: Buffer): string {
  const prefix = '{"id":"';
  if (line.toString('latin1', 0, prefix.length) === prefix) {
    for (let i = prefix.length; i < line.length; i++) {
      if (line[i] === BACKSLASH) i++;
      else if (line[i] === QUOTE) return JSON.parse(line.toString('utf8', prefix.length - 1, i + 1)) as string;
    }
  }
  return (JSON.parse(line.toString('utf8')) as SessionSummary).id;
}

/**
 * `{ thread }` when a message line (as the archive writes it: `{"thread":"…","message":{…`) is a tool
 * result, read from its first bytes: the message's leading fields are scalars up to `source_type`, so it is
 * a top-level field and not text inside one. Anything else, or in doubt: undefined (the line is parsed).
 */
export function toolResultStandIn(line: Buffer): { thread: string } | undefined {
  const head = '{"thread":"';
  if (line.toString('latin1', 0, head.length) !== head) return undefined;
  const threadEnd = stringEnd(line, head.length - 1);
  if (threadEnd === -1) return undefined;
  let at = threadEnd + 1;
  const opening = ',"message":{';
  if (line.toString('latin1', at, at + opening.length) !== opening) return undefined;
  at += opening.length;
  const limit = Math.min(line.length, at + 1024);
  while (at < limit && line[at] === QUOTE) {
    const keyEnd = stringEnd(line, at);
    if (keyEnd === -1 || line[keyEnd + 1] !== 0x3a) return undefined;
    const key = line.toString('latin1', at + 1, keyEnd);
    at = keyEnd + 2;
    if (key === 'source_type') {
      const value = '"tool_result"';
      if (line.toString('latin1', at, at + value.length) !== value) return undefined;
      const after = line[at + value.length];
      if (after !== 0x2c && after !== 0x7d) return undefined;
      return { thread: JSON.parse(line.toString('utf8', head.length - 1, threadEnd + 1)) as string };
    }
    if (line[at] === QUOTE) {
      const valueEnd = stringEnd(line, at);
      if (valueEnd === -1) return undefined;
      at = valueEnd + 1;
    } else {
      // A number, true, false or null; an object or an array ends the look.
      while (at < limit && line[at] !== 0x2c && line[at] !== 0x7d) {
        if (line[at] === 0x7b || line[at] === 0x5b || line[at] === QUOTE) return undefined;
        at += 1;
      }
    }
    if (line[at] !== 0x2c) return undefined;
    at += 1;
  }
  return undefined;
}

/** The index of the quote that closes the JSON string opening at `open`, or -1. */
function stringEnd(line: Buffer, open: number): number {
  for (let at = open + 1; at < line.length; at++) {
    if (line[at] === BACKSLASH) at += 1;
    else if (line[at] === QUOTE) return at;
  }
  return -1;
}
