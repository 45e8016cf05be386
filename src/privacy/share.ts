import type { MessageMetadata, MessageSegment, NormalizedMessage, RawRef, ToolCall } from '../model/message.ts';
import type {
  HistoryPrompt,
  Session,
  SessionPageContent,
  SessionSummary,
  SessionThreads,
  SubagentThread,
} from '../model/session.ts';
import { EMAIL_PLACEHOLDER, HOST_PLACEHOLDER, USER_PLACEHOLDER, type Anonymizer } from './anonymize.ts';
import { renderMarkdown } from '../transcript/markdown.ts';
import { redactionMarker, type Redactor } from './redact.ts';

export type OmitPart = 'thinking' | 'tool-output' | 'tool-input';
export const OMIT_PARTS: readonly OmitPart[] = ['thinking', 'tool-output', 'tool-input'];

export interface ShareOptions {
  redactor: Redactor;
  anonymizer: Anonymizer;
  omit?: ReadonlySet<OmitPart>;
}

export const OMITTED_NOTES = {
  thinking: 'Thinking omitted from this shared copy.',
  'tool-output': 'Tool output omitted from this shared copy.',
  'tool-input': 'Tool input omitted from this shared copy.',
  image: 'image not included in the shared copy',
} as const;

/** Metadata keys whose values are identifiers or enums, never user content. */
const STRUCTURAL_METADATA = new Set(['kind', 'subtype', 'model', 'response_id', 'agent_id']);

// A string shortened for an index (`…` at the end) may have cut a token below the length its rule
// needs; a known token prefix right before the cut is enough to hide it.
const TRUNCATED_TOKEN =
  /(?<![A-Za-z0-9_-])(?:AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|sk-|(?:sk|rk)_(?:live|test)_|xox[abposre]-|xapp-|AIza|GOCSPX-|ya29\.|eyJ|npm_|hf_|gsk_|hv[sb]\.|dckr_pat_|shpat_|lin_api_|pypi-)[A-Za-z0-9_.+/=-]*(?:…|\.\.\.)$/;

// A Discord bot token has no fixed prefix: its first part is a user id in base64, so a cut one is known by
// its first characters decoding to digits (which no word or hash does).
const TRUNCATED_DISCORD = /(?<![A-Za-z0-9_.-])(?<uid>[MNO][A-Za-z0-9]{11,27})(?:\.[A-Za-z0-9_-]*){0,2}(?:…|\.\.\.)$/;

function cutDiscordToken(uid: string): boolean {
  const whole = uid.slice(0, uid.length - (uid.length % 4));
  return /^\d+$/.test(Buffer.from(whole, 'base64').toString('latin1'));
}

/** Everything a page can show, redacted and anonymized; counts what was redacted. */
class Cleaner {
  redactions = 0;

  constructor(private readonly options: ShareOptions) {}

  text(value: string, key?: string): string {
    const { text, findings } =
      key === undefined ? this.options.redactor.redact(value) : this.options.redactor.redactValue(key, value);
    this.redactions += findings.length;
    let out = text;
    if (out.endsWith('…') || out.endsWith('...')) {
      out = out.replace(TRUNCATED_TOKEN, () => {
        this.redactions += 1;
        return `${redactionMarker('truncated-token')}…`;
      });
      const discord = TRUNCATED_DISCORD.exec(out);
      if (discord && cutDiscordToken(discord.groups!.uid!)) {
        this.redactions += 1;
        out = `${out.slice(0, discord.index)}${redactionMarker('truncated-token')}…`;
      }
    }
    return this.options.anonymizer.anonymize(out);
  }

  optional(value: string | undefined): string | undefined {
    return value === undefined ? undefined : this.text(value);
  }

  /** A deep copy of a JSON-like value with every string (and object key) cleaned. */
  json(value: unknown, key?: string): unknown {
    if (typeof value === 'string') return this.text(value, key);
    if (Array.isArray(value)) return value.map((item) => this.json(item, key));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.json(v, k);
      return out;
    }
    return value;
  }
}

/** Any other text as a share shows it (a search snippet, a line of our own that quotes a path). */
export function shareText(value: string, options: ShareOptions): string {
  return new Cleaner(options).text(value);
}

/** One message as a share shows it: through shareSession, alone in a session of its own. */
export function shareOneMessage(message: NormalizedMessage, options: ShareOptions): NormalizedMessage {
  const carrier: Session = {
    source: 'claude-code',
    sessionId: '',
    title: '',
    cwd: '',
    startedAt: '',
    endedAt: '',
    models: [],
    files: [],
    messages: [message],
    subagents: [],
    warnings: [],
  };
  return shareSession(carrier, options).session.messages[0]!;
}

export function shareSession(session: Session, options: ShareOptions): { session: Session; redactions: number } {
  const cleaner = new Cleaner(options);
  const shared: Session = {
    ...session,
    title: cleaner.text(session.title),
    cwd: cleaner.text(session.cwd),
    models: [...session.models],
    files: session.files.map((f) => cleaner.text(f)),
    ...shareThreads(session, cleaner, options),
    warnings: session.warnings.map((w) => cleaner.text(w)),
  };
  setOrDelete(shared, 'gitBranch', cleaner.optional(session.gitBranch));
  if (session.resumedFrom) shared.resumedFrom = [...session.resumedFrom];
  return { session: shared, redactions: cleaner.redactions };
}

/** One page of a session (see SessionPageContent), cleaned as shareSession cleans its messages. */
export function sharePageContent(page: SessionPageContent, options: ShareOptions): SessionPageContent {
  const shared: SessionPageContent = shareThreads(page, new Cleaner(options), options);
  if (page.resumedFrom) shared.resumedFrom = [...page.resumedFrom];
  return shared;
}

function shareThreads(threads: SessionThreads, cleaner: Cleaner, options: ShareOptions): SessionThreads {
  const omit = options.omit ?? new Set<OmitPart>();
  const messages = (list: NormalizedMessage[]) => list.map((m) => shareMessage(m, cleaner, omit));
  return {
    messages: messages(threads.messages),
    subagents: threads.subagents.map((agent) => {
      const out: SubagentThread = { ...agent, file: cleaner.text(agent.file), messages: messages(agent.messages) };
      setOrDelete(out, 'description', cleaner.optional(agent.description));
      setOrDelete(out, 'agentType', cleaner.optional(agent.agentType));
      return out;
    }),
  };
}

/** Fields of an index record (a summary, a history prompt) that hold identifiers, times or enums, never user
 * content: copied as they are. */
const STRUCTURAL_FIELDS = new Set([
  'id',
  'source',
  'sessionId',
  'startedAt',
  'endedAt',
  'collectedAt',
  'timestamp',
  'body',
  'models',
  'pattern',
]);
/** Objects keyed by a time slot or a model name: their keys are kept, their values cleaned. */
const STRUCTURAL_KEYS = new Set(['activity', 'tokensByModel']);

/** A deep copy of an index record with every string and every object key cleaned, at any depth, but for the
 * structural fields above: a field added later (the files a slot edited, a new list of paths) is cleaned
 * without anyone having to remember it. */
function shareFields(value: unknown, c: Cleaner, key?: string): unknown {
  if (key !== undefined && STRUCTURAL_FIELDS.has(key)) return structuredClone(value);
  if (typeof value === 'string') return c.text(value);
  if (Array.isArray(value)) return value.map((item) => shareFields(item, c));
  if (value && typeof value === 'object') {
    const keepKeys = key !== undefined && STRUCTURAL_KEYS.has(key);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[keepKeys ? k : c.text(k)] = shareFields(v, c, k);
    return out;
  }
  return value;
}

export function shareSummary(
  summary: SessionSummary,
  options: ShareOptions,
): { summary: SessionSummary; redactions: number } {
  const cleaner = new Cleaner(options);
  const shared = shareFields(summary, cleaner) as SessionSummary;
  return { summary: shared, redactions: cleaner.redactions };
}

/** A prompt of the prompt history, cleaned as a summary is (every field but its source, time and session). */
export function shareHistoryPrompt(prompt: HistoryPrompt, options: ShareOptions): HistoryPrompt {
  return shareFields(prompt, new Cleaner(options)) as HistoryPrompt;
}

function shareMessage(m: NormalizedMessage, c: Cleaner, omit: ReadonlySet<OmitPart>): NormalizedMessage {
  const isOutput = m.source_type === 'tool_result' || m.metadata?.kind === 'command_output';
  const omitOutput = omit.has('tool-output') && isOutput;
  const thinkingMessage = m.metadata?.kind === 'thinking';
  const segments = omitOutput
    ? outputNote(m)
    : m.segments.map((s) => shareSegment(s, c, omit.has('thinking') && (thinkingMessage || s.format === 'thinking')));
  const out: NormalizedMessage = { ...m, segments, raw: shareRaw(m.raw, c, omitOutput) };
  if (m.tool_call) out.tool_call = shareToolCall(m.tool_call, c, omit);
  if (m.metadata) out.metadata = shareMetadata(m.metadata, c);
  return out;
}

/** Tool results keep no segments (their images are output too); a command's printed output becomes
 * the note. */
function outputNote(m: NormalizedMessage): MessageSegment[] {
  if (m.source_type === 'tool_result') return [];
  const first = m.segments.find((s) => s.type === 'text');
  return [
    {
      channel: first?.channel ?? 'output',
      type: 'text',
      format: first?.format ?? 'text',
      text: OMITTED_NOTES['tool-output'],
    },
  ];
}

function shareSegment(s: MessageSegment, c: Cleaner, omitThinking: boolean): MessageSegment {
  const out: MessageSegment = { ...s };
  if (omitThinking && s.type === 'text') {
    out.text = OMITTED_NOTES.thinking;
    delete out.html;
    delete out.annotations;
    return out;
  }
  if (s.text !== undefined) out.text = c.text(s.text);
  // Rendered again from the redacted text: the HTML is never edited. Text that redaction left as it was
  // keeps the HTML it already had (rendering costs far more than redacting).
  if (s.html !== undefined) {
    if (out.text === undefined) delete out.html;
    else if (out.text !== s.text) out.html = renderShared(out.text);
  }
  if (s.annotations) out.annotations = c.json(s.annotations) as unknown[];
  if (s.media) {
    // Pixels cannot be redacted: a screenshot may show a token or a home path.
    const { data_uri, url, ...media } = s.media;
    out.media = media;
    if (url !== undefined) out.media.url = c.text(url);
    if (data_uri !== undefined) out.media.omitted = OMITTED_NOTES.image;
    else if (media.omitted !== undefined) out.media.omitted = c.text(media.omitted);
  }
  return out;
}

function shareToolCall(call: ToolCall, c: Cleaner, omit: ReadonlySet<OmitPart>): ToolCall {
  const out: ToolCall = { ...call, name: c.text(call.name) };
  if (call.arguments !== undefined || call.arguments_json !== undefined) {
    if (omit.has('tool-input')) {
      delete out.arguments_json;
      out.arguments = OMITTED_NOTES['tool-input'];
    } else {
      shareArguments(call, out, c);
    }
  }
  if (call.output !== undefined || call.output_json !== undefined) {
    if (omit.has('tool-output')) {
      delete out.output_json;
      out.output = OMITTED_NOTES['tool-output'];
    } else {
      if (call.output !== undefined) out.output = c.text(call.output);
      if (call.output_json !== undefined) out.output_json = c.json(call.output_json);
    }
  }
  return out;
}

/** Sources write `arguments` as `JSON.stringify(arguments_json, null, 2)`: then it is rebuilt from the
 * cleaned JSON, so a secret cannot survive in one of the two and the text stays valid JSON. */
function shareArguments(call: ToolCall, out: ToolCall, c: Cleaner): void {
  if (call.arguments_json === undefined) {
    if (call.arguments !== undefined) out.arguments = sharedJsonText(call.arguments, c);
    return;
  }
  out.arguments_json = c.json(call.arguments_json);
  if (call.arguments === undefined) return;
  out.arguments =
    call.arguments === JSON.stringify(call.arguments_json, null, 2)
      ? JSON.stringify(out.arguments_json, null, 2)
      : sharedJsonText(call.arguments, c);
}

/** JSON text is cleaned value by value (so `"password": "…"` is caught by its key) and written back in
 * the same layout; anything else as text. */
function sharedJsonText(text: string, c: Cleaner): string {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return JSON.stringify(c.json(parsed), null, text.includes('\n') ? 2 : undefined);
    } catch {
      // Not JSON after all.
    }
  }
  return c.text(text);
}

function shareRaw(raw: RawRef, c: Cleaner, omitRecord: boolean): RawRef {
  const out: RawRef = { ...raw, file_path: c.text(raw.file_path) };
  if (raw.record !== undefined) {
    if (omitRecord) delete out.record;
    else out.record = c.json(raw.record);
  }
  return out;
}

function shareMetadata(metadata: MessageMetadata, c: Cleaner): MessageMetadata {
  const out: MessageMetadata = {};
  for (const [key, value] of Object.entries(metadata)) {
    out[key] = STRUCTURAL_METADATA.has(key) ? structuredClone(value) : c.json(value, key);
  }
  return out;
}

// `<user>` in Markdown is an HTML tag to marked and DOMPurify would drop it: the placeholders go
// through the renderer as private-use sentinels and come out as escaped text.
const PLACEHOLDERS = [USER_PLACEHOLDER, HOST_PLACEHOLDER, EMAIL_PLACEHOLDER].map((placeholder) => ({
  placeholder,
  sentinel: `\uE000${placeholder.slice(1, -1)}\uE001`,
  html: `&lt;${placeholder.slice(1, -1)}&gt;`,
}));

function renderShared(markdown: string): string {
  let source = markdown;
  for (const p of PLACEHOLDERS) source = source.replaceAll(p.placeholder, p.sentinel);
  let html = renderMarkdown(source);
  for (const p of PLACEHOLDERS) html = html.replaceAll(p.sentinel, p.html);
  return html;
}

function setOrDelete<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
