import type { MessageMetadata, RawRef } from '../../model/message.ts';
import type { QUserMessage } from './schema.ts';
import { imageSegment, isObject, sanitize, textSegment } from './content.ts';
import type { Draft, DraftFields, MakeDraft } from './draft.ts';
import { toolResultFields } from './tool-uses.ts';

/** Injected context (context files, hook output) repeats with every prompt; the data keeps its start. */
export const INJECTED_CONTEXT_MAX_CHARS = 20_000;

/** The user side of an element (or `next_message`): injected context, tool results, the prompt and its images. */
export function userDrafts(
  draft: MakeDraft,
  user: QUserMessage | undefined,
  unit: string,
  time: string | undefined,
  rawBase: Omit<RawRef, 'file_path' | 'event_type'>,
  extra: MessageMetadata,
): Draft[] {
  if (!user) return [];
  const out: Draft[] = [];
  const add = (event: string, fields: DraftFields, record?: unknown): void => {
    out.push(draft(unit, '', 0, time, { ...rawBase, event_type: event, ...(record ? { record } : {}) }, fields));
  };
  const content = isObject(user.content) ? user.content : undefined;
  const variant = content ? Object.keys(content)[0] : undefined;
  const context = typeof user.additional_context === 'string' ? user.additional_context.trim() : '';
  if (context && context !== 'N/A') {
    const kept = context.slice(0, INJECTED_CONTEXT_MAX_CHARS);
    add(variant ?? 'unknown', {
      role: 'meta',
      source_type: 'meta',
      segments: [textSegment('system', kept, 'additional_context')],
      metadata: {
        kind: 'injected',
        subtype: 'additional_context',
        ...(context.length > kept.length ? { omitted_chars: context.length - kept.length } : {}),
        ...extra,
      },
    });
  }
  const images = Array.isArray(user.images) ? user.images.map(imageSegment) : [];
  const promptMessage = (text: string, event: string) =>
    add(event, {
      role: 'user',
      source_type: 'message',
      segments: [...(text ? [textSegment('input', text)] : []), ...images],
      metadata: { kind: 'prompt', ...extra },
    });
  if (content && isObject(content.Prompt)) {
    promptMessage(typeof content.Prompt.prompt === 'string' ? content.Prompt.prompt : '', 'Prompt');
  } else if (content && isObject(content.ToolUseResults)) {
    for (const fields of toolResultFields(content.ToolUseResults.tool_use_results, false, images, extra)) {
      add('ToolUseResults', fields);
    }
  } else if (content && isObject(content.CancelledToolUses)) {
    const cancelled = content.CancelledToolUses;
    const prompt = typeof cancelled.prompt === 'string' && cancelled.prompt.trim() ? cancelled.prompt : undefined;
    // Without a prompt to carry them, the images go with the first result.
    for (const fields of toolResultFields(cancelled.tool_use_results, true, prompt ? [] : images, extra)) {
      add('CancelledToolUses', fields);
    }
    if (prompt !== undefined || (images.length > 0 && !out.some((d) => d.message.source_type === 'tool_result')))
      promptMessage(prompt ?? '', 'CancelledToolUses');
  } else {
    add(
      variant ?? 'unknown',
      { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...extra } },
      sanitize(user),
    );
  }
  return out;
}
