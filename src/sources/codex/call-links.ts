import type { NormalizedMessage } from '../../model/message.ts';
import { endDetails } from './content.ts';
import type { EventPayload } from './schema.ts';

interface CallEnd {
  message: NormalizedMessage;
  payload: EventPayload;
  kind: string;
}

/**
 * Tool calls, their results and their end events, linked by `call_id` once the whole file has been
 * read (a result or end event may come before or long after its call).
 */
export class CallLinks {
  private readonly calls = new Map<string, NormalizedMessage>();
  private readonly results: NormalizedMessage[] = [];
  private readonly callEnds: CallEnd[] = [];

  addCall(callId: string, message: NormalizedMessage): void {
    this.calls.set(callId, message);
  }

  addResult(message: NormalizedMessage): void {
    this.results.push(message);
  }

  addCallEnd(end: CallEnd): void {
    this.callEnds.push(end);
  }

  link(): void {
    this.linkCallEnds();
    this.linkResults();
  }

  private linkCallEnds(): void {
    const resultByCall = new Map<string, NormalizedMessage>();
    for (const r of this.results) if (r.tool_call) resultByCall.set(r.tool_call.call_id, r);
    for (const end of this.callEnds) {
      const callId = end.payload.call_id!;
      const details = endDetails(end.kind, end.payload);
      let result = resultByCall.get(callId);
      if (!result) {
        const call = this.calls.get(callId);
        if (!call) continue;
        // No output item: the end event is the result.
        result = end.message;
        result.role = 'tool';
        result.source_type = 'tool_result';
        result.tool_call = {
          call_id: callId,
          name: call.tool_call!.name,
          status: 'completed',
          output: details.output ?? '',
        };
        result.metadata = { event_kind: end.kind };
        this.results.push(result);
        resultByCall.set(callId, result);
      }
      result.metadata ??= {};
      Object.assign(result.metadata, details.metadata);
      if (details.error && result.tool_call) result.tool_call.status = 'error';
    }
  }

  private linkResults(): void {
    for (const r of this.results) {
      const resultCall = r.tool_call;
      if (!resultCall) continue;
      const exit = r.metadata?.exit_code;
      if (typeof exit === 'number' && exit !== 0) resultCall.status = 'error';
      const call = this.calls.get(resultCall.call_id)?.tool_call;
      if (!call) continue;
      resultCall.name = call.name;
      call.status = resultCall.status;
      call.result_id = r.id;
    }
  }
}
