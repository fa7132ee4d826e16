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
 * What the client learns beside the answer travels in response headers: {@link DROPPED_BETAS_HEADER} (the
 * beta flags the upstream does not take, left out rather than failing the request) and
 * {@link WARNINGS_HEADER} (what the request lost on the way).
 *
 * @module
 */
import type { NativeEvent } from "../../providers/native.ts";
import { isEnvelope } from "../reasoning-envelope.ts";
import type { Frame } from "../write-sse.ts";

/** The response header listing the beta flags the upstream does not take (comma-separated). */
export const DROPPED_BETAS_HEADER = "x-modelwire-dropped-betas";
/** The response header carrying the call's warnings: a JSON array of strings, in ASCII. */
export const WARNINGS_HEADER = "x-modelwire-warnings";

/** Most characters of the warnings header (proxies refuse very long headers). */
const MAX_WARNINGS_CHARS = 4000;

/** The `anthropic-beta` header as flags (a comma list; blanks dropped, each flag once). */
export function betasOf(header: string | undefined): string[] {
  const flags = new Set<string>();
  for (const flag of (header ?? "").split(",")) if (flag.trim() !== "") flags.add(flag.trim());
  return [...flags];
}

/** A JSON text with every non-ASCII character escaped (`\uXXXX`), fit for a header value. */
function asciiJSON(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The dialect's response headers: the warnings (those that fit; the last entry says how many more there
 * were) and the dropped beta flags, each only when there is something to say.
 */
export function dialectHeaders(
  warnings: readonly string[],
  droppedBetas: readonly string[] = [],
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (warnings.length > 0) {
    let kept = [...warnings];
    let value = asciiJSON(kept);
    while (value.length > MAX_WARNINGS_CHARS && kept.length > 1) {
      kept = kept.slice(0, -1);
      value = asciiJSON([...kept, `… and ${warnings.length - kept.length} more`]);
    }
    if (value.length > MAX_WARNINGS_CHARS)
      value = asciiJSON([`${warnings.length} warning(s), too long to show`]);
    headers[WARNINGS_HEADER] = value;
  }
  if (droppedBetas.length > 0) headers[DROPPED_BETAS_HEADER] = droppedBetas.join(",");
  return headers;
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
