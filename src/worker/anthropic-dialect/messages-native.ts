/**
 * The Messages dialect on a route whose member speaks it natively (first-party Anthropic, Bedrock
 * InvokeModel): the client's body goes upstream as it is, the upstream's answer comes back as it was
 * sent — the JSON text, or each event's JSON text under its own `event:` name, in order.
 *
 * One thing is taken out of the body on the way: thinking blocks the gateway itself wrote on a converted
 * route (a reasoning envelope, or the empty signature of a display copy). No Anthropic upstream could
 * verify them ("Invalid signature in thinking block"); they are left out with a warning. A body without
 * them is sent as it came.
 *
 * What the client learns beside the answer travels in response headers: `x-modelwire-dropped-betas` (the
 * beta flags the upstream does not take, left out rather than failing the request) and
 * `x-modelwire-warnings` (`../response-headers.ts`) (what the request lost on the way).
 *
 * @module
 */
import type { NativeEvent } from "../../providers/native.ts";
import { isEnvelope } from "../reasoning-envelope.ts";
import type { Frame } from "../write-sse.ts";

/** The `anthropic-beta` header as flags (a comma list; blanks dropped, each flag once). */
export function betasOf(header: string | undefined): string[] {
  const flags = new Set<string>();
  for (const flag of (header ?? "").split(",")) if (flag.trim() !== "") flags.add(flag.trim());
  return [...flags];
}

/**
 * The client's body without the thinking blocks the gateway wrote (see the module comment): the same
 * object when it has none, a copy otherwise, with a warning naming each block left out. An assistant turn
 * left with no block at all is left out too.
 */
export function withoutCarriedThinking(
  body: Record<string, unknown>,
  warnings: string[],
): Record<string, unknown> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  const carried = (block: unknown) => {
    const value = block as { type?: unknown; signature?: unknown } | null;
    return (
      typeof value === "object" &&
      value !== null &&
      value.type === "thinking" &&
      (isEnvelope(value.signature) || value.signature === "")
    );
  };
  if (!messages.some((message) => Array.isArray(message?.content) && message.content.some(carried))) {
    return body;
  }
  const kept: unknown[] = [];
  messages.forEach((message, index) => {
    if (!Array.isArray(message?.content) || !message.content.some(carried)) {
      kept.push(message);
      return;
    }
    const content = (message.content as unknown[]).filter((block, position) => {
      if (!carried(block)) return true;
      warnings.push(
        `messages[${index}].content[${position}]: a thinking block the gateway wrote for another route ` +
          "cannot be verified by an Anthropic upstream; left out",
      );
      return false;
    });
    if (content.length > 0) kept.push({ ...message, content });
  });
  return { ...body, messages: kept };
}

/**
 * The upstream's events as SSE frames, each under its own `event:` name with its JSON text as sent. The
 * first event is read before the frames are handed on, so a stream that fails before it is a plain HTTP
 * error (and a pool fails over).
 */
export async function nativeFrames(events: AsyncIterable<NativeEvent>): Promise<AsyncIterable<Frame>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    try {
      if (first.done) return;
      yield { event: first.value.event, data: first.value.data };
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield { event: next.value.event, data: next.value.data };
      }
    } finally {
      await iterator.return?.();
    }
  })();
}
