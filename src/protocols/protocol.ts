/**
 * The protocol contract: what every wire protocol (Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses, Bedrock Converse, Anthropic over Bedrock InvokeModel — and the next one) gives the rest of the
 * library, as one object with the same members. The providers' HTTP shell (`src/providers/http-provider.ts`)
 * drives any object that keeps this contract; nothing above this layer knows which protocol it talks to.
 *
 * A new protocol (Google Gemini, say) is new files plus registration points:
 * - a folder `src/protocols/<p>/` holding the cast `<p>-wire.ts`, `build-<p>-request.ts`,
 *   `convert-to-<p>-messages.ts`, `prepare-<p>-tools.ts`, `parse-<p>-response.ts`, `assemble-<p>-stream.ts`,
 *   `map-<p>-error.ts`, `map-<p>-usage.ts`, `map-<p>-stop-reason.ts` (each file named after its one export;
 *   `apply-<p>-thinking.ts` where thinking needs its own rules), and an `index.ts` exporting the one
 *   {@link Protocol} object whose members point at those functions. Rules every protocol shares are not
 *   written again: `nativeProvenance` (`native-replay.ts`), `isContextOverflow`, `resolveToolChoice`, the
 *   stored-history readers, and for the stream assembler `deliverBatches` (the read loop, the "content went
 *   out" flag, the `truncated` error), `ToolCallTracker`, `PieceBuffer` and `mergeUnknownDelta`;
 * - `src/providers/<p>.ts`: settings, URL, headers and auth handed to `httpProvider` with the object, and
 *   `src/substrate/factories/<p>-factory.ts`: its `ProviderFactory` (the schema of the config fields only
 *   it reads, and its build);
 * - registration: the factory in `BUILT_IN_FACTORIES` (`src/substrate/factories/index.ts`), its exports in
 *   `src/index.ts` and `src/protocols/index.ts`, its row in the conformance table of
 *   `test/protocols/protocol.test.ts` and its case in `test/protocols/stored-history.property.test.ts`, its
 *   recordings under `test/fixtures/<p>/`.
 *
 * The steps, the tests to copy and the checklist are in `CONTRIBUTING.md` ("Adding a provider"). A protocol
 * from outside the package is written the same way against `modelwire/protocols` and registered through
 * `createProvider(config, { factories })`: `test/fixtures-code/ndjson-chat/` is one.
 *
 * @module
 */
import type { CallOptions } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { ProviderErrorKind } from "../core/provider-error.ts";
import type { Response, StopReason } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import type { PreparedResponseFormat } from "../core/structured-output.ts";
import type { ToolSpec } from "../core/tool-spec.ts";
import type { Usage } from "../core/usage.ts";
import type { ValidationIssue } from "../core/validation-error.ts";
import type { NativeTarget } from "./native-replay.ts";

/**
 * The neutral call every request is built from. A protocol's own request input extends it with where the
 * request goes (model, origin or endpoint profile, model facts, the provider's defaults).
 */
export interface ProtocolRequest {
  /**
   * The history, possibly read back from storage and not what the types say (malformed tool-call JSON,
   * missing ids, empty text, foreign `native` blocks): converted without trusting it.
   */
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  /**
   * `options.responseFormat` prepared once by the shell (`prepareResponseFormat`): JSON Schema, name and
   * strictness. The protocol maps it to its API's native form, or adds the tool of `outputToolSpec` (`output-tool.ts`) and
   * forces a tool call, and then says so in `BuiltRequest.outputTool`.
   */
  format?: PreparedResponseFormat | undefined;
}

/** What `buildRequest` gives: the body, and what the shell must know about it. */
export interface BuiltRequest<B> {
  body: B;
  /** Everything corrected or left out on the way: copied to `Response.warnings`. */
  warnings: string[];
  /**
   * The name of the forced output tool when structured output went as one (`output-tool.ts`): the shell
   * turns that tool's call into the answer's text, streamed as it comes.
   */
  outputTool?: string | undefined;
  /**
   * What the target cannot take and has no documented degradation for (an image where the API takes none,
   * a file type it does not read), each naming the field (`messages[2].content[1]`): the shell raises them
   * as one `ValidationError` before any request. `buildRequest` itself never throws.
   */
  refused?: ValidationIssue[] | undefined;
}

/** Where a response came from: stamped on `Response.provider` and on `native` for replay matching. */
export interface ProtocolContext {
  /** `Response.provider`. */
  provider: string;
  /** The model the request named: `native.model`, so the next request to it replays the blocks. */
  model: string;
  /** What building the request corrected or left out: copied to `Response.warnings`. */
  warnings?: readonly string[] | undefined;
}

/**
 * The endpoint and model a request goes to, as the provenance rule compares them with `native.origin` and
 * `native.model` (`NativeTarget` of `native-replay.ts`, the protocol being the object's own `name`).
 */
export type ReplayTarget = Omit<NativeTarget, "protocol">;

/** What a protocol makes of an error answer: kind, message and codes. */
export interface ErrorBodyInfo {
  kind: ProviderErrorKind;
  message: string;
  code?: string | undefined;
  requestId?: string | undefined;
  retryable?: boolean | undefined;
  /** A wait the protocol found beyond `Retry-After` (used when `Retry-After` is absent). */
  retryAfterMs?: number | undefined;
}

/**
 * Reading an HTTP error answer: the status, the body already parsed as JSON when it was JSON (else
 * `undefined`), the response headers.
 */
export type ErrorBodyMapper = (status: number, body: unknown, headers: Headers) => ErrorBodyInfo;

/** The wire types a {@link Protocol} is generic over. */
export interface ProtocolWire {
  /** What `buildRequest` takes: the neutral call and where it goes. */
  request: ProtocolRequest;
  /** The request body, as it is JSON-encoded onto the wire. */
  body: object;
  /** The JSON body of a whole (non-streaming) 2xx answer. */
  response: object;
  /** One unit of the stream's framing: an SSE event, an AWS event-stream frame. */
  frame: unknown;
  /** Where a response came from (`provider`, `model`, and the origin or endpoint profile). */
  context: ProtocolContext;
  /** The wire's usage object. */
  usage: unknown;
  /** What the wire says about why generation stopped, as the arguments of `mapStopReason`. */
  stopReason: readonly unknown[];
}

/**
 * One wire protocol, both directions of the client side: neutral call → request body, and answer (whole or
 * streamed) → neutral `Response`. Every member is a pure function over plain data except `readFrames` and
 * `assembleStream`, which consume a stream; none reads the environment, the clock or the network, and none
 * needs a runtime beyond Web Streams and `TextDecoder`.
 *
 * What each member must guarantee — the conformance tests hold every implementation to it:
 *
 * - **`name`** is `native.protocol` on every message this protocol produces and `Provider.protocol` of
 *   every provider speaking it. Stored histories carry it: it never changes.
 * - **`buildRequest`** never throws on stored history: whatever `messages` holds, it degrades, drops with a
 *   warning, or skips — a raise here wedges a session forever, because every later turn converts the same
 *   record again. An assistant message whose `native` passes `replaysNative` for the request's target is
 *   sent from `native.blocks` verbatim, byte for byte and in emission order (signed thinking, redacted
 *   thinking, encrypted reasoning, each bound to the item that followed it); any other is rebuilt from its
 *   neutral fields, and its reasoning is dropped — never demoted to text. An option the wire cannot carry,
 *   or a value it would reject (a thinking budget below the floor or above `maxTokens`, `temperature` on a
 *   reasoning model), is corrected or left out and listed in `warnings`, never sent unsatisfiable and never
 *   dropped in silence. A `format` is mapped natively, or as the forced output tool (named in
 *   `outputTool`), or refused with a `ValidationError` naming `responseFormat` — never ignored.
 * - **`isResponse`** tells whether a 2xx JSON body has the shape `parseResponse` reads; a body that fails
 *   it is an `invalid_response` (or the failure `errorInResponse` finds in it). Never throws.
 * - **`errorInResponse`** (only for wires whose servers report failures in a 2xx body) names that failure.
 * - **`parseResponse`** turns a whole answer into a `Response` whose `message.native` is `{ protocol: name,
 *   origin, model: context.model, blocks }` with `blocks` the provider's own content items verbatim and in
 *   order; `stopReason` comes from `mapStopReason` (the raw value in `rawStopReason`), `usage` from
 *   `mapUsage`, `context.warnings` go to `warnings`. It throws only a `ProviderError`, and only for an
 *   answer that reports a failure.
 * - **`readFrames`** cuts a response body into the protocol's frames, yielding each network read's frames
 *   together; bad framing is a `WireError` (`truncated`, `invalid_frame`, …), which the shell maps.
 * - **`assembleStream`** yields neutral events as frames arrive — the frames of one read delivered
 *   together, never held back for later ones — and ends with exactly one `{ type: "done", response }`
 *   whose `response` equals what `parseResponse` gives for the same output (`native.blocks` included:
 *   streamed signatures and encrypted reasoning survive). A stream that ends before the wire's terminal
 *   event throws a `truncated` `ProviderError`, never a silent success; an error the stream reports throws
 *   its mapped `ProviderError` after the output produced before it, with `partialOutput` set once content
 *   went out. Event types it does not know are skipped; block, delta and item types it does not know are kept
 *   in `native.blocks` as the whole answer holds them (deltas merged by `mergeUnknownDelta`), or listed
 *   in `warnings` where they cannot be — never dropped in silence.
 * - **`mapError`** is total: any status, any body (`undefined`, a string, an object of any shape) and any
 *   headers give a kind and a message. The wire's own error type or code decides where it is specific,
 *   the status otherwise (`errorKindFromStatus`); a `bad_request` whose message says the context window is
 *   exceeded is `context_length` (`isContextOverflow`). `retryAfterMs` is only a wait the wire names beyond
 *   `Retry-After`, which the shell reads itself.
 * - **`mapUsage`** is total over missing and partial usage: `inputTokens` is uncached input only (cache
 *   reads and writes in their own counts, whatever the vendor folds together); a count not reported stays
 *   `undefined`, a reported 0 stays 0.
 * - **`mapStopReason`** is total: a missing reason is `"stop"`, one it does not know is `"other"`.
 * - **`replaysNative`** is the provenance rule, and the only one `buildRequest` applies: `native` replays
 *   verbatim exactly when it is an object with a `blocks` array whose `protocol` is `name` and whose
 *   `origin` and `model` equal the target's — `nativeProvenance` of `native-replay.ts`, which every
 *   converter calls, seen as a yes or no (`replaysNative` in `replays-native.ts`).
 *
 * @example
 * ```ts
 * const { body, warnings } = anthropicMessagesProtocol.buildRequest(input);
 * const response = anthropicMessagesProtocol.parseResponse(json, { provider: "anthropic", model, origin: "anthropic", warnings });
 * for await (const event of anthropicMessagesProtocol.assembleStream(anthropicMessagesProtocol.readFrames(body), context)) { … }
 * ```
 */
export interface Protocol<W extends ProtocolWire = ProtocolWire> {
  /** The wire-protocol name: `native.protocol` and `Provider.protocol`. */
  readonly name: string;
  /** Neutral call → request body, and everything corrected or left out on the way. */
  buildRequest(input: W["request"]): BuiltRequest<W["body"]>;
  /** Whether a 2xx JSON body is a whole answer `parseResponse` reads. */
  isResponse(json: object): json is W["response"];
  /** The failure a 2xx body that is not an answer reports, if the wire reports failures that way. */
  errorInResponse?(json: object): ErrorBodyInfo | undefined;
  /** A whole answer → `Response`. */
  parseResponse(json: W["response"], context: W["context"]): Response;
  /** A streaming answer's body → its frames, one batch per network read. */
  readFrames(body: ReadableStream<Uint8Array>): AsyncIterable<W["frame"] | readonly W["frame"][]>;
  /** Frames → neutral stream events, ending with `done`. */
  assembleStream(
    frames: AsyncIterable<W["frame"] | readonly W["frame"][]>,
    context: W["context"],
  ): AsyncIterable<StreamEvent>;
  /** An HTTP error answer → kind, message, code, wait. */
  mapError(status: number, body: unknown, headers: Headers): ErrorBodyInfo;
  /** The wire's usage → neutral usage. */
  mapUsage(usage: W["usage"] | null | undefined): Usage;
  /** The wire's stop reason → neutral stop reason. */
  mapStopReason(...raw: W["stopReason"]): StopReason;
  /** Whether a message's `native` replays verbatim to `target` under this protocol. */
  replaysNative(native: unknown, target: ReplayTarget): boolean;
}
