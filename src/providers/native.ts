/**
 * Native calls: a request body of the provider's own wire protocol sent upstream as the client wrote it,
 * and the upstream's events handed back as it sent them. A gateway speaking that protocol to its clients
 * (Anthropic Messages for Claude Code, the Responses API for Codex) passes requests through this way, so
 * blocks the neutral model does not carry — signed thinking, `cache_control`, server tools, documents —
 * reach the upstream unchanged and come back byte for byte.
 *
 * The stream is still checked by the protocol's own assembler, frame by frame, before each event goes out:
 * an upstream `error` event or exception frame is a `ProviderError`, a stream cut before its terminal
 * event is `truncated` (never a clean end), and the assembled `Response` (usage, stop reason) is there at
 * the end for accounting — the rules are the protocol's, written once.
 *
 * @module
 */
import type { Timeouts } from "../core/call-options.ts";
import { markPartialOutput } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import { isContentEvent, type StreamEvent } from "../core/stream-event.ts";
import type { Usage } from "../core/usage.ts";
import type { SseEvent } from "../wire/sse.ts";

/** One event of a native stream: its type and its JSON text exactly as the upstream sent it. */
export interface NativeEvent {
  /** The event type (`message_start`, `response.output_text.delta`, …). */
  event: string;
  /** The event's JSON, as sent (for Bedrock InvokeModel: the decoded `bytes` of a `chunk` frame). */
  data: string;
}

/** A native request: a body of the provider's protocol, as a client sent it. */
export interface NativeRequest {
  /**
   * The body, as the client sent it. `model` is replaced by the provider's model id (and left out where
   * the upstream takes it in the URL); `stream` is set from {@link NativeRequest.stream}.
   */
  body: Record<string, unknown>;
  /** Whether to ask for a stream. */
  stream: boolean;
  /**
   * Beta flags the client asked for (Anthropic's `anthropic-beta`). The first-party API gets them all as
   * the header; Bedrock InvokeModel those it accepts in the body's `anthropic_beta`, the others listed in
   * {@link NativeAnswer.droppedBetas}.
   */
  betas?: readonly string[] | undefined;
  /** The client's `anthropic-version`, sent upstream where the upstream reads that header. */
  version?: string | undefined;
  signal?: AbortSignal | undefined;
  timeouts?: Timeouts | undefined;
}

/** What a native call answered: the whole JSON or the checked stream of events. */
export interface NativeAnswer {
  /** The HTTP status of the upstream's 2xx answer. */
  status: number;
  /** `complete`: the upstream's JSON text, as sent. */
  json?: string;
  /** `stream`: the upstream's events, as sent, each checked first; the last one is the terminal event. */
  events?: AsyncIterable<NativeEvent>;
  /**
   * The answer as a neutral `Response`, once it is known (`complete`: at once; `stream`: after the last
   * event was read) — for usage accounting.
   */
  response(): Response | undefined;
  /**
   * The usage the upstream reported so far (the response's once there is one): what a call that failed
   * part-way was billed. Undefined when nothing was reported.
   */
  usage?(): Usage | undefined;
  /** Beta flags the upstream does not accept, left out of the request (see {@link NativeRequest.betas}). */
  droppedBetas: readonly string[];
  /** What the request lost on the way (a field the upstream does not take), one line each. */
  warnings: readonly string[];
  /** The upstream's request id, when it sent one. */
  requestId?: string | undefined;
}

/** A provider's native endpoint: requests of its own protocol passed through. */
export interface NativeEndpoint {
  /** The wire protocol of the bodies it takes (`"anthropic-messages"`, `"openai-responses"`). */
  readonly protocol: string;
  /** Where the upstream's answer came from: `"anthropic"`, `"bedrock"`, `"openai"`. */
  readonly origin: string;
  /**
   * Sends the body upstream. A non-2xx answer, a failed fetch, a deadline are the `ProviderError`s of the
   * provider's other calls (the protocol's error mapping, no secret in any field); so is a stream that
   * fails or is cut (thrown from the iteration of `events`, `partialOutput` once content went out).
   */
  send(request: NativeRequest): Promise<NativeAnswer>;
  /**
   * Counts the input tokens of a request body of this protocol, where the upstream has a counting API
   * (Anthropic's `count_tokens`, Bedrock's `CountTokens`); absent where it has none.
   */
  countTokens?(request: Omit<NativeRequest, "stream">): Promise<number>;
}

/** A provider that can pass requests of its protocol through (see {@link NativeEndpoint}). */
export interface NativeCapable {
  readonly native?: NativeEndpoint | undefined;
}

/** The native endpoint of `provider` when it has one speaking `protocol`. */
export function nativeEndpointOf(provider: unknown, protocol: string): NativeEndpoint | undefined {
  const native = (provider as NativeCapable | null | undefined)?.native;
  return native !== undefined && native.protocol === protocol ? native : undefined;
}

/**
 * The upstream's events as sent, each handed out once the protocol's assembler has taken it without
 * failing. `frames` are the protocol's `readFrames` output; `eventOf` gives a frame's type and text
 * (undefined: a frame that is not an event, still fed to the assembler); `assemble` is the protocol's
 * `assembleStream`. The assembler's failure (an `error` event, a cut stream) is thrown after the events
 * before it, `partialOutput` set once a content event was assembled; every assembled event (its usage so far,
 * its final `Response`) goes to `seen`.
 * A consumer that stops early is not held until the upstream's next frame: abort the upstream request
 * then (as `httpProvider`'s native calls do), so the read in flight ends.
 */
export async function* checkedNativeEvents<F>(
  frames: AsyncIterable<F | readonly F[]>,
  eventOf: (frame: F) => NativeEvent | undefined,
  assemble: (frames: AsyncIterable<F>) => AsyncIterable<StreamEvent>,
  /** Every event the assembler made (a `usage` event: usage so far; `done`: the whole response). */
  seen: (event: StreamEvent) => void,
): AsyncGenerator<NativeEvent, void, undefined> {
  // The assembler pulls one frame at a time: when it asks for the next one, the last was taken — at once,
  // not when the next frame arrives (a ping before a long silence goes out before the silence).
  const taken: NativeEvent[] = [];
  let current: NativeEvent | undefined;
  let wake: (() => void) | undefined;
  const take = () => {
    if (current !== undefined) taken.push(current);
    current = undefined;
    wake?.();
  };
  const single = (async function* () {
    for await (const batch of frames) {
      for (const frame of Array.isArray(batch) ? (batch as readonly F[]) : [batch as F]) {
        current = eventOf(frame);
        yield frame;
        // Resumed: the assembler took the frame — before the next read, which may fail (a cut stream).
        take();
      }
    }
  })();
  const assembled = assemble(single)[Symbol.asyncIterator]();
  let content = false;
  // Whether the assembler is reading on (its `next` unsettled) while taken events go out: a consumer that
  // leaves then must not wait for the upstream's next frame.
  let reading = false;
  try {
    for (;;) {
      const next = assembled.next();
      reading = true;
      next.then(
        () => {
          reading = false;
        },
        () => {
          reading = false;
        },
      );
      // Events the assembler took go out as soon as it took them, even while it reads on (a ping, a
      // block's stop: frames that make no neutral event).
      let result: IteratorResult<StreamEvent, void> | undefined;
      while (result === undefined) {
        const woken = new Promise<undefined>((resolve) => {
          wake = () => resolve(undefined);
        });
        result = await Promise.race([next, woken]);
        while (taken.length > 0) yield taken.shift()!;
      }
      if (result.done) break;
      // The assembler gives the events of a frame once it has taken the whole frame.
      take();
      while (taken.length > 0) yield taken.shift()!;
      const event = result.value;
      content ||= isContentEvent(event);
      seen(event);
    }
  } catch (error) {
    // The events the assembler took before the failing one still went out; then the failure.
    while (taken.length > 0) yield taken.shift()!;
    throw markPartialOutput(error, content);
  } finally {
    wake = undefined;
    // Left while the assembler waits for a frame: it is closed once that read settles (the caller aborts
    // the upstream request to make it settle now), without holding the consumer until then.
    if (reading) assembled.return?.().catch(() => {});
    else await assembled.return?.();
  }
}

/** A server-sent event as a native event: its `event:` name (else the JSON's `type`) and its data as sent. */
export function sseNativeEvent(sse: SseEvent): NativeEvent {
  return { event: sse.event ?? typeOfJson(sse.data) ?? "message", data: sse.data };
}

/** The `type` field of an event's JSON text; undefined when it has none (or is not JSON). */
export function typeOfJson(data: string): string | undefined {
  try {
    const type = (JSON.parse(data) as { type?: unknown } | null)?.type;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

/** Beta flag lists merged in order, each flag once (`a,b` header values split). */
export function mergeBetas(...lists: readonly (readonly string[] | undefined)[]): string[] {
  const merged = new Set<string>();
  for (const list of lists) {
    for (const entry of list ?? []) {
      for (const flag of entry.split(",")) if (flag.trim() !== "") merged.add(flag.trim());
    }
  }
  return [...merged];
}
