/**
 * What every archived message is checked against (`checkMessage`): the types of `NormalizedMessage`, a depth
 * limit on its free-form parts and a size limit on its strings. A part with a wrong type is replaced with a
 * stand-in that says what was there, a part nested too deep with a marker; the message itself is always kept.
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { isObject } from './json-value.ts';
import type { MessageKind, NormalizedMessage, Role, SourceType, ToolStatus } from './message.ts';

/** Deeper than this (counted from the message) a value is replaced with a marker: readers of the archive walk
 * tool inputs and records recursively, and no real message comes near it. */
export const MAX_MESSAGE_DEPTH = 64;
/** A string longer than this cannot be written as part of one JSON line (V8 strings end near 512 MiB). */
export const MAX_STRING_CHARS = 64 * 1024 * 1024;

export const DEEP_MARKER = `[cut: nested deeper than ${MAX_MESSAGE_DEPTH} levels]`;

const ROLES = ['user', 'assistant', 'tool', 'system', 'meta'] as const satisfies readonly Role[];
const SOURCE_TYPES = [
  'message',
  'tool_call',
  'tool_result',
  'meta',
  'session',
  'legacy',
] as const satisfies readonly SourceType[];
const STATUSES = ['completed', 'error', 'unanswered', 'rejected'] as const satisfies readonly ToolStatus[];
const KINDS = [
  'prompt',
  'response',
  'thinking',
  'command',
  'command_output',
  'injected',
  'interrupt',
  'compact_boundary',
  'compact_summary',
  'api_error',
  'system_event',
  'title',
  'unknown',
] as const satisfies readonly MessageKind[];

/** The repairs made while one message is parsed (parsing is synchronous: one message at a time). */
let repairs: string[] = [];

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function repaired<T>(what: string, value: unknown, replacement: T): T {
  repairs.push(`${what} was ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : kindOf(value)}`);
  return replacement;
}

type CatchCtx = { value: unknown };

/** The schema of a message, with a stand-in for each part that does not fit (see plainlyFits). */
function messageSchema(z: typeof Zod.z): Zod.ZodType {
  const fix = <T extends Zod.ZodType>(schema: T, standIn: (ctx: CatchCtx) => unknown): Zod.ZodType =>
    schema.catch((ctx) => standIn(ctx) as Zod.output<T>);
  /** Text; anything else becomes a marker naming its type. */
  const text = (what: string) =>
    fix(z.string(), (ctx) => repaired(what, ctx.value, `[not text: ${kindOf(ctx.value)}]`));
  /** An id: a number is written as its digits. */
  const id = (what: string) =>
    fix(z.string(), (ctx) =>
      repaired(what, ctx.value, typeof ctx.value === 'number' ? String(ctx.value) : `[not text: ${kindOf(ctx.value)}]`),
    );
  const oneOf = <T extends readonly [string, ...string[]]>(what: string, values: T, fallback: T[number]) =>
    fix(z.enum(values), (ctx) => repaired(what, ctx.value, fallback));
  /** A count: a numeric string is read as its number, anything else is 0. */
  const count = (what: string) =>
    fix(z.number(), (ctx) => repaired(what, ctx.value, Number.isFinite(Number(ctx.value)) ? Number(ctx.value) : 0));
  /** An optional part with a wrong type is dropped. */
  const dropped = (what: string, schema: Zod.ZodType) =>
    fix(schema.optional(), (ctx) => repaired(what, ctx.value, undefined));

  const segment = fix(
    z.looseObject({
      channel: oneOf('segment channel', ['input', 'output', 'system'], 'system'),
      type: oneOf('segment type', ['text', 'image'], 'text'),
      format: text('segment format'),
      text: text('segment text').optional(),
      html: text('segment html').optional(),
      media: dropped('segment media', z.looseObject({})),
      annotations: dropped('segment annotations', z.array(z.unknown())),
    }),
    (ctx) => ({
      channel: 'system',
      type: 'text',
      format: 'unknown',
      text: repaired('a segment', ctx.value, `[not a segment: ${kindOf(ctx.value)}]`),
    }),
  );
  const usage = z.looseObject({
    input: count('usage input'),
    output: count('usage output'),
    cacheRead: count('usage cacheRead'),
    cacheCreation: count('usage cacheCreation'),
    cacheCreation1h: count('usage cacheCreation1h').optional(),
  });
  return z.looseObject({
    id: id('id'),
    timestamp: text('timestamp'),
    timestamp_estimated: dropped('timestamp_estimated', z.boolean()),
    role: oneOf('role', ROLES, 'meta'),
    source_type: oneOf('source_type', SOURCE_TYPES, 'meta'),
    segments: fix(z.array(segment), (ctx) => repaired('segments', ctx.value, [])),
    tool_call: dropped(
      'tool_call',
      z.looseObject({
        call_id: id('tool call id'),
        name: text('tool name'),
        status: oneOf('tool status', STATUSES, 'error'),
        arguments: text('tool arguments').optional(),
        output: text('tool output').optional(),
        result_id: dropped('tool result_id', z.string()),
      }),
    ),
    raw: fix(
      z.looseObject({
        event_type: text('raw event_type'),
        payload_type: text('raw payload_type').optional(),
        file_path: text('raw file_path'),
        line_index: count('raw line_index'),
        uuid: id('raw uuid').optional(),
      }),
      (ctx) => repaired('raw', ctx.value, { event_type: 'unknown', file_path: '', line_index: 0 }),
    ),
    metadata: dropped(
      'metadata',
      z.looseObject({
        kind: oneOf('metadata kind', KINDS, 'unknown').optional(),
        response_id: id('response id').optional(),
        model: text('model').optional(),
        usage: dropped('usage', usage),
        is_meta: dropped('is_meta', z.boolean()),
        subtype: text('subtype').optional(),
        compact: dropped(
          'compact',
          z.looseObject({ trigger: text('compact trigger').optional(), pre_tokens: count('pre_tokens').optional() }),
        ),
      }),
    ),
  });
}

let repairing: Zod.ZodType | undefined;

/** The repairing schema, made when a message first needs it: loading zod costs ~150 ms, which every command that
 * opens the archive (a warm collect, a search) would pay for messages that nearly always fit plainly. */
function repairingSchema(): Zod.ZodType {
  repairing ??= messageSchema((createRequire(import.meta.url)('zod') as typeof Zod).z);
  return repairing;
}

const isText = (v: unknown) => typeof v === 'string';
const isOptionalText = (v: unknown) => v === undefined || typeof v === 'string';
const ROLE_SET = new Set<unknown>(ROLES);
const SOURCE_TYPE_SET = new Set<unknown>(SOURCE_TYPES);
const STATUS_SET = new Set<unknown>(STATUSES);

/** The schema's verdict for the usual message, by hand: zod's parse costs a few times the JSON.stringify the
 * writer does anyway, and a collect streams gigabytes of messages that all fit. False sends the message to the
 * schema, which finds what does not fit; so this may be stricter than the schema, never looser. */
function plainlyFits(m: NormalizedMessage): boolean {
  if (!isObject(m) || !isText(m.id) || !isText(m.timestamp) || !ROLE_SET.has(m.role)) return false;
  if (!SOURCE_TYPE_SET.has(m.source_type) || !Array.isArray(m.segments)) return false;
  if (m.timestamp_estimated !== undefined && typeof m.timestamp_estimated !== 'boolean') return false;
  for (const s of m.segments) {
    if (!isObject(s) || !isText(s.format) || !isOptionalText(s.text) || !isOptionalText(s.html)) return false;
    if (s.channel !== 'input' && s.channel !== 'output' && s.channel !== 'system') return false;
    if (s.type !== 'text' && s.type !== 'image') return false;
    if (s.media !== undefined && !isObject(s.media)) return false;
    if (s.annotations !== undefined && !Array.isArray(s.annotations)) return false;
  }
  const call = m.tool_call;
  if (call !== undefined) {
    if (!isObject(call) || !isText(call.call_id) || !isText(call.name) || !STATUS_SET.has(call.status)) return false;
    if (!isOptionalText(call.arguments) || !isOptionalText(call.output) || !isOptionalText(call.result_id))
      return false;
  }
  const raw = m.raw;
  if (!isObject(raw) || !isText(raw.event_type) || !isText(raw.file_path) || typeof raw.line_index !== 'number')
    return false;
  if (!isOptionalText(raw.payload_type) || !isOptionalText(raw.uuid)) return false;
  const meta = m.metadata;
  if (meta === undefined) return true;
  if (!isObject(meta) || !isOptionalText(meta.kind) || !isOptionalText(meta.response_id)) return false;
  if (!isOptionalText(meta.model) || !isOptionalText(meta.subtype)) return false;
  if (meta.is_meta !== undefined && typeof meta.is_meta !== 'boolean') return false;
  if (meta.kind !== undefined && !KINDS.includes(meta.kind)) return false;
  if (meta.compact !== undefined && !isObject(meta.compact)) return false;
  const usage = meta.usage;
  if (usage === undefined) return true;
  return (
    isObject(usage) &&
    typeof usage.input === 'number' &&
    typeof usage.output === 'number' &&
    typeof usage.cacheRead === 'number' &&
    typeof usage.cacheCreation === 'number' &&
    (usage.cacheCreation1h === undefined || typeof usage.cacheCreation1h === 'number')
  );
}

/**
 * Makes `message` fit the model, in place: wrong types replaced (see the schema above), parts nested deeper
 * than MAX_MESSAGE_DEPTH and strings longer than MAX_STRING_CHARS cut. Returns what was repaired (empty for a
 * message that was fine; such a message is not copied).
 */
export function checkMessage(message: NormalizedMessage): string[] {
  const found: string[] = [];
  let result: ReturnType<Zod.ZodType['safeParse']> | undefined;
  if (!plainlyFits(message)) {
    repairs = found;
    try {
      result = repairingSchema().safeParse(message);
    } finally {
      repairs = [];
    }
  }
  if (result && !result.success) {
    // Only a message that is not an object gets here: every field has its stand-in.
    found.push(`the message was ${kindOf(message)}`);
  } else if (result && found.length > 0) {
    const fixed = result.data as Record<string, unknown>;
    const target = message as unknown as Record<string, unknown>;
    for (const key of Object.keys(target)) if (!(key in fixed) || fixed[key] === undefined) delete target[key];
    Object.assign(target, fixed);
  }
  const cut = cutDeeperThan(message, MAX_MESSAGE_DEPTH);
  if (cut > 0) found.push(`${cut} part${cut === 1 ? '' : 's'} nested deeper than ${MAX_MESSAGE_DEPTH} levels cut`);
  return found;
}

/**
 * Replaces every value deeper than `max` levels below `root` with DEEP_MARKER-like text, and every string
 * longer than MAX_STRING_CHARS with its start and a note; in place, without recursion (a value may be nested
 * 100,000 levels). Returns how many values were cut for depth.
 */
export function cutDeeperThan(root: unknown, max: number): number {
  if (typeof root !== 'object' || root === null) return 0;
  let cut = 0;
  const nodes: object[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    for (const key in node) {
      const child = node[key];
      if (typeof child === 'string') {
        if (child.length > MAX_STRING_CHARS) {
          node[key] = `${child.slice(0, 1024)}… [cut: ${child.length} characters]`;
        }
      } else if (typeof child === 'object' && child !== null) {
        if (depth >= max) {
          node[key] = `[cut: nested deeper than ${max} levels]`;
          cut += 1;
        } else {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return cut;
}
