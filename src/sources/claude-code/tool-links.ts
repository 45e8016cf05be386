import type { NormalizedMessage, ToolCall, ToolStatus } from '../../model/message.ts';
import type { BodyOut } from '../../model/body.ts';

/** The last call message with a call id: `[message id, tool name, status shown, result id shown]`. */
export type CallLink = [id: string, name: string, status: ToolStatus, resultId?: string];

/** Results for a call id that its `CallLink` cannot tell (written before the call, or more than one); all
 * carry the same tool name, the call's once it is known. */
export interface ResultLinks {
  ids: string[];
  name: string;
  status: ToolStatus;
}

/**
 * The links between a thread's tool calls and their results, made as each message is written: a result takes
 * its call's tool name and the call is patched to show the result. Results before their call (parallel calls
 * on side branches) and repeated call ids end as a whole-file pass would leave them: the last call with an id
 * shows the last result for it.
 */
export class ToolLinks {
  /** Both maps are saved as is in the thread's state (the maps themselves, not copies). */
  constructor(
    private readonly out: BodyOut,
    private readonly thread: string,
    readonly calls = new Map<string, CallLink>(),
    readonly results = new Map<string, ResultLinks>(),
  ) {}

  /** The results a call id has had, from its explicit entry or, in the usual case of one, from its call. */
  private resultsOf(callId: string): ResultLinks | undefined {
    const explicit = this.results.get(callId);
    if (explicit) return explicit;
    const link = this.calls.get(callId);
    return link?.[3] ? { ids: [link[3]], name: link[1], status: link[2] } : undefined;
  }

  linkCall(m: NormalizedMessage, call: ToolCall): void {
    const previous = this.calls.get(call.call_id);
    const results = this.resultsOf(call.call_id);
    if (previous && (previous[2] !== 'unanswered' || previous[3])) {
      const was = previous[2];
      this.out.patch(this.thread, {
        id: previous[0],
        status: 'unanswered',
        resultId: null,
        was: { status: was },
        tool: previous[1],
      });
    }
    if (results) {
      call.status = results.status;
      call.result_id = results.ids[results.ids.length - 1];
      if (results.name !== call.name) {
        for (const id of results.ids) this.out.patch(this.thread, { id, name: call.name });
      }
      if (this.results.has(call.call_id)) results.name = call.name;
    }
    this.calls.set(call.call_id, [m.id, call.name, call.status, call.result_id]);
  }

  linkResult(m: NormalizedMessage, call: ToolCall): void {
    const link = this.calls.get(call.call_id);
    const explicit = this.results.get(call.call_id);
    if (call.call_id && !explicit && (!link || link[3])) {
      // Not the one result its call entry can tell: keep the list.
      this.results.set(call.call_id, {
        ids: link?.[3] ? [link[3]] : [],
        name: link?.[1] ?? call.name,
        status: call.status,
      });
    }
    if (link) {
      call.name = link[1];
      if (link[2] !== call.status || link[3] !== m.id) {
        this.out.patch(this.thread, {
          id: link[0],
          status: call.status,
          resultId: m.id,
          was: { status: link[2] },
          tool: link[1],
        });
        link[2] = call.status;
        link[3] = m.id;
      }
    }
    const results = this.results.get(call.call_id);
    if (results && call.call_id) {
      results.ids.push(m.id);
      results.status = call.status;
    }
  }
}
