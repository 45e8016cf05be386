import type { MessageKind, MessageSegment, NormalizedMessage } from '../../model/message.ts';
import { imageSegment } from './content.ts';
import type { EventPayload } from './schema.ts';

const INJECTED_TAG = /^<([a-z_][\w-]*)>[\s\S]*<\/\1>\s*$/i;
const INJECTED_PREFIXES = [
  '# AGENTS.md instructions',
  '<environment_context>',
  '<user_instructions>',
  '<INSTRUCTIONS>',
];
export const SHELL_COMMAND = /^<user_shell_command>([\s\S]*)<\/user_shell_command>\s*$/;

export function classifyUserText(text: string): MessageKind {
  const trimmed = text.trim();
  if (!trimmed) return 'injected';
  if (SHELL_COMMAND.test(trimmed)) return 'command';
  if (INJECTED_PREFIXES.some((p) => trimmed.startsWith(p))) return 'injected';
  if (trimmed.startsWith('<turn_aborted>') || INJECTED_TAG.test(trimmed)) return 'injected';
  return 'prompt';
}

export interface UserItem {
  message: NormalizedMessage;
  texts: string[];
  promptKind: MessageKind;
}

/** The user items and `user_message` events of one rollout, to tell the human prompts once all are read. */
export class PromptResolver {
  private readonly userItems: UserItem[] = [];
  private readonly userEvents: { message: NormalizedMessage; payload: EventPayload }[] = [];

  addUserItem(item: UserItem): void {
    this.userItems.push(item);
  }

  addUserEvent(message: NormalizedMessage, payload: EventPayload): void {
    this.userEvents.push({ message, payload });
  }

  /**
   * The human prompt is what the user typed: when the file has `user_message` events, a user item is
   * a prompt only if an event has its text, and an event without such an item is the prompt itself;
   * without events (legacy), user items are classified by their injected-context prefixes.
   */
  resolve(): void {
    if (this.userEvents.length === 0) return;
    const unmatched = new Set(this.userItems);
    for (const event of this.userEvents) {
      const text = (event.payload.message ?? '').trim();
      const item = this.userItems.find(
        (u) => unmatched.has(u) && (u.texts.some((t) => t.trim() === text) || u.texts.join('\n').trim() === text),
      );
      if (item) {
        unmatched.delete(item);
        item.message.role = 'user';
        item.message.metadata!.kind = item.promptKind === 'command' ? 'command' : 'prompt';
        continue;
      }
      const m = event.message;
      m.role = 'user';
      m.source_type = 'message';
      m.segments = [
        ...(text ? [{ channel: 'input' as const, type: 'text' as const, format: 'user_message', text }] : []),
        ...(event.payload.images ?? []).map((url) => imageSegment(url, 'input', 'user_message_image')),
        ...(event.payload.local_images ?? []).map((p): MessageSegment => ({
          channel: 'input',
          type: 'image',
          format: 'local_image',
          media: { omitted: `local file ${p}` },
        })),
      ];
      m.metadata = { kind: 'prompt', event_kind: 'user_message' };
    }
    for (const item of unmatched) {
      item.message.role = 'meta';
      item.message.metadata!.kind = 'injected';
    }
  }
}
