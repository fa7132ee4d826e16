/**
 * `httpProvider()`: the one shell every HTTP provider is. A provider file says only what is its own —
 * settings, URL, headers, auth — and hands over its protocol object; the shell owns the call's path:
 * request (through the protocol) → fetch (`post`: deadlines, the caller's signal, `authorize`) → error
 * mapping (the protocol's `mapError`) → a whole answer read and checked (`isResponse`, `errorInResponse`,
 * `parseResponse`) or the stream guard (frames → events, `partialOutput` once output went out) → every
 * error scrubbed of the call's secrets.
 *
 * @module
 */
import type { CallOptions, Timeouts } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import { isContentEvent, type StreamEvent } from "../core/stream-event.ts";
import { prepareResponseFormat, readStructuredOutput } from "../core/structured-output.ts";
import { normalizeToolSpecs, type ToolSpec, type ToolSpecInput } from "../core/tool-spec.ts";
import type { Usage } from "../core/usage.ts";
import { ValidationError } from "../core/validation-error.ts";
import { outputToolAnswer, outputToolEvents } from "../protocols/output-tool.ts";
import type { Protocol, ProtocolWire } from "../protocols/protocol.ts";
import {
  type PostRequest,
  post,
  type TransportContext,
  toProviderError,
  toScrubbedProviderError,
} from "./http.ts";
import { checkedNativeEvents, type NativeEndpoint, type NativeEvent, type NativeRequest } from "./native.ts";

/** What every HTTP provider's settings hold, besides its own. */
export interface HttpProviderSettings {
  /** The model id requests name. */
  model: string;
  /** Injected `fetch` (tests, proxies, tracing); `globalThis.fetch` when unset, resolved per call. */
  fetch?: typeof fetch;
  /** Default deadlines of every call (a call's `timeouts` override them); see `CallOptions.timeouts`. */
  timeouts?: Timeouts;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** One call, as the provider's hooks see it: the tools already normalised. */
export interface HttpCall<O extends CallOptions = CallOptions> {
  messages: readonly MessageInput[];
  tools: readonly ToolSpec[];
  options: O;
  /** `stream()` (true) or `complete()` (false). */
  stream: boolean;
}

/** Where one call goes. */
export interface HttpEndpoint {
  url: string;
  /** Credentials included, unless `authorize` adds them to the finished request. */
  headers: Record<string, string>;
}

/**
 * What a provider tells {@link httpProvider}: its protocol, who it is (`provider`, `model` and `secrets`,
 * as every error names them) and what is its own in the transport.
 */
export interface HttpProviderSpec<W extends ProtocolWire, O extends CallOptions = CallOptions>
  extends TransportContext {
  /** The wire protocol: it builds the body, reads the answer and maps errors. */
  protocol: Protocol<W>;
  /** `Provider.name`, `Response.provider` and `ProviderError.provider`. */
  provider: string;
  model: string;
  /** Never in an error, in any encoding: API keys, tokens, credential headers (see `secretsOf`). */
  secrets: readonly (string | undefined)[];
  /** Injected `fetch`; `globalThis.fetch` when unset, resolved per call. */
  fetch?: typeof fetch | undefined;
  /** The provider's default deadlines (a call's `timeouts` override them). */
  timeouts?: Timeouts | undefined;
  /** What the protocol's `buildRequest` takes for a call: the call plus where it goes. */
  request(call: HttpCall<O>): W["request"];
  /** The URL and headers of a call (per call: session affinity may pick the replica). */
  endpoint(call: HttpCall<O>): HttpEndpoint;
  /** Adds credentials to the finished request (SigV4 signs the body); `endpoint`'s headers alone when unset. */
  authorize?: PostRequest["authorize"];
  /** Stamped on every `Response` (with the call's warnings): the origin or endpoint profile. */
  context: Omit<W["context"], "warnings">;
  /** Refuses a 2xx streaming answer that is not a stream (Bedrock: JSON where an event stream belongs). */
  checkStream?(response: globalThis.Response): Promise<globalThis.Response>;
  /** Native calls (a client's body of this protocol passed through): see {@link HttpNativeSpec}. */
  native?: HttpNativeSpec<W>;
}

/** How a provider passes a client's body of its protocol through (`Provider.native`, see `NativeEndpoint`). */
export interface HttpNativeSpec<W extends ProtocolWire> {
  /** `NativeEndpoint.origin`. */
  origin: string;
  /** The upstream body for the client's, and the beta flags left out (the upstream does not take them). */
  body(request: NativeRequest): { body: Record<string, unknown>; droppedBetas: string[]; warnings: string[] };
  /** Headers on top of `endpoint`'s (the client's `anthropic-beta`, say). */
  headers?(request: NativeRequest): Record<string, string>;
  /** A frame's event, as the upstream sent it; undefined for a frame that is not one. */
  eventOf(frame: W["frame"]): NativeEvent | undefined;
  /** `NativeEndpoint.countTokens`: the URL and body of the count, and how to read its answer. */
  countTokens?: {
    request(request: Omit<NativeRequest, "stream">): { url: string; body: Record<string, unknown> };
    read(json: unknown): number | undefined;
  };
}

/** A provider built by {@link httpProvider}: a `Provider` whose calls take the options type `O`. */
export interface HttpProvider<O extends CallOptions = CallOptions> extends Provider {
  /** Requests of its own protocol passed through, when the provider supports it. */
  readonly native?: NativeEndpoint | undefined;
  complete(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: O,
  ): Promise<Response>;
  stream(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: O,
  ): AsyncIterable<StreamEvent>;
}

/**
 * A `Provider` over HTTP for any protocol object. `complete()` POSTs the protocol's body and parses the
 * 2xx JSON (a body that is not an answer is `invalid_response`, or the failure the protocol finds in it);
 * `stream()` POSTs it for a stream and yields the protocol's assembled events, ending with `done`. Every
 * failure — the request, an error status, a deadline, the body, the stream — is a `ProviderError` with the
 * protocol's kind, `partialOutput` once output went out, and no secret in any field.
 *
 * @example
 * ```ts
 * const provider = httpProvider({
 *   protocol: anthropicMessagesProtocol,
 *   provider: "anthropic",
 *   model,
 *   secrets: [apiKey],
 *   context: { provider: "anthropic", model, origin: "anthropic" },
 *   request: ({ messages, tools, options, stream }) =>
 *     ({ messages, tools, options, stream, target: { model, origin: "anthropic" }, profile }),
 *   endpoint: () => ({ url, headers: { "content-type": "application/json", "x-api-key": apiKey } }),
 * });
 * ```
 */
export function httpProvider<W extends ProtocolWire, O extends CallOptions = CallOptions>(
  spec: HttpProviderSpec<W, O>,
): HttpProvider<O> {
  const { protocol } = spec;

  const send = (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
    options: O,
    stream: boolean,
  ) => {
    const call: HttpCall<O> = { messages, tools: normalizeToolSpecs(tools), options, stream };
    const format = prepareResponseFormat(options.responseFormat);
    const { body, warnings, outputTool, refused } = protocol.buildRequest({ ...spec.request(call), format });
    if (refused && refused.length > 0) throw new ValidationError(refused);
    const { url, headers } = spec.endpoint(call);
    const response = post({
      ...spec,
      url,
      headers,
      body: JSON.stringify(body),
      signal: options.signal,
      stream,
      timeouts: { ...spec.timeouts, ...options.timeouts },
      mapErrorBody: protocol.mapError,
    });
    return { response, context: { ...spec.context, warnings } as W["context"], format, outputTool };
  };

  /** The provider's native endpoint (see `NativeEndpoint`): the same transport, the client's body. */
  function nativeEndpoint(nativeSpec: HttpNativeSpec<W>): NativeEndpoint {
    const transport = (request: Omit<NativeRequest, "stream">, stream: boolean, url?: string) => {
      const endpoint = spec.endpoint({ messages: [], tools: [], options: {} as O, stream });
      return {
        ...spec,
        url: url ?? endpoint.url,
        headers: { ...endpoint.headers, ...nativeSpec.headers?.({ ...request, stream }) },
        signal: request.signal,
        stream,
        timeouts: { ...spec.timeouts, ...request.timeouts },
        mapErrorBody: protocol.mapError,
      };
    };
    const context = { ...spec.context, warnings: [] } as W["context"];
    const endpoint: NativeEndpoint = {
      protocol: protocol.name,
      origin: nativeSpec.origin,
      async send(request) {
        const { body, droppedBetas, warnings } = nativeSpec.body(request);
        if (!request.stream) {
          const pending = post({ ...transport(request, false), body: JSON.stringify(body) });
          const answer = await pending.catch((error: unknown) => {
            throw toScrubbedProviderError(error, spec, request.signal);
          });
          const requestId = requestIdOf(answer.headers);
          const { text, parsed } = await readAnswer(Promise.resolve(answer), context, request.signal);
          return {
            status: answer.status,
            json: text,
            response: () => parsed,
            usage: () => parsed.usage,
            droppedBetas,
            warnings,
            requestId,
          };
        }
        // A consumer that stops reading the events early aborts the upstream request (see below), as the
        // caller's signal does.
        const stop = new AbortController();
        const caller = request.signal;
        const onAbort = () => stop.abort(caller?.reason);
        if (caller?.aborted) onAbort();
        else caller?.addEventListener("abort", onAbort, { once: true });
        const pending = post({
          ...transport(request, true),
          signal: stop.signal,
          body: JSON.stringify(body),
        });
        let final: Response | undefined;
        let usage: Usage | undefined;
        let answer: globalThis.Response;
        let frames: ReadableStream<Uint8Array>;
        try {
          answer = await pending;
          const checked = spec.checkStream ? await spec.checkStream(answer) : answer;
          if (!checked.body) throw new TypeError("response has no body");
          frames = checked.body;
        } catch (error) {
          caller?.removeEventListener("abort", onAbort);
          throw toScrubbedProviderError(error, spec, request.signal);
        }
        const events = checkedNativeEvents(
          protocol.readFrames(frames),
          nativeSpec.eventOf,
          (single) => protocol.assembleStream(single, context),
          (event) => {
            if (event.type === "usage") usage = event.usage;
            else if (event.type === "done") {
              final = event.response;
              usage = final.usage;
            }
          },
        );
        return {
          status: answer.status,
          events: (async function* () {
            let ended = false;
            try {
              yield* events;
              ended = true;
            } catch (error) {
              ended = true;
              throw toScrubbedProviderError(
                error,
                spec,
                request.signal,
                ProviderError.is(error) && error.partialOutput === true,
              );
            } finally {
              caller?.removeEventListener("abort", onAbort);
              // The consumer left before the end: the rest of the answer is not read.
              if (!ended) stop.abort(new DOMException("the stream's consumer stopped reading", "AbortError"));
            }
          })(),
          response: () => final,
          usage: () => usage,
          droppedBetas,
          warnings,
          requestId: requestIdOf(answer.headers),
        };
      },
    };
    const counting = nativeSpec.countTokens;
    if (counting) {
      endpoint.countTokens = async (request) => {
        const { url, body } = counting.request(request);
        const answer = await post({ ...transport(request, false, url), body: JSON.stringify(body) }).catch(
          (error: unknown) => {
            throw toScrubbedProviderError(error, spec, request.signal);
          },
        );
        let text = "";
        let value: unknown;
        try {
          text = await answer.text();
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
        const count = counting.read(value);
        if (count === undefined || !Number.isInteger(count) || count < 0) {
          throw new ProviderError({
            kind: "invalid_response",
            message: `${spec.provider}: the token count answer has no input token count`,
            provider: spec.provider,
            model: spec.model,
            upstreamBody: text,
            secrets: spec.secrets,
          });
        }
        return count;
      };
    }
    return endpoint;
  }

  /**
   * A whole answer: its text and the protocol's `Response`. A body that is not an answer is the failure it
   * reports (OpenAI answers some with a 200), or `invalid_response`.
   */
  const readAnswer = async (
    response: Promise<globalThis.Response>,
    context: W["context"],
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; parsed: Response }> => {
    let text: string;
    try {
      text = await (await response).text();
    } catch (error) {
      throw toProviderError(error, spec, signal);
    }
    let json: object | undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null) json = value;
    } catch {
      // Not JSON: no object to check.
    }
    if (json && protocol.isResponse(json)) {
      try {
        return { text, parsed: protocol.parseResponse(json, context) };
      } catch (error) {
        // An answer that reports a failure (a `failed` Responses response) was read without the keys.
        throw toScrubbedProviderError(error, spec, signal);
      }
    }
    const info = json && protocol.errorInResponse?.(json);
    throw new ProviderError({
      kind: info ? info.kind : "invalid_response",
      message: `${spec.provider}: ${info ? info.message : `200 with no ${protocol.name} response`}`,
      code: info?.code,
      retryable: info?.retryable,
      provider: spec.provider,
      model: spec.model,
      upstreamBody: text,
      secrets: spec.secrets,
    });
  };

  const native = spec.native && nativeEndpoint(spec.native);

  return {
    name: spec.provider,
    model: spec.model,
    protocol: protocol.name,
    ...(native ? { native } : {}),

    async complete(messages, tools, options = {} as O): Promise<Response> {
      const { response, context, format, outputTool } = send(messages, tools, options, false);
      const { parsed } = await readAnswer(response, context, options.signal);
      return readStructuredOutput(outputTool ? outputToolAnswer(parsed, outputTool) : parsed, format);
    },

    async *stream(messages, tools, options = {} as O): AsyncGenerator<StreamEvent, void, undefined> {
      const { response, context, format, outputTool } = send(messages, tools, options, true);
      // The stream guard: every failure — the request, a missing body, the stream itself — is a scrubbed
      // ProviderError, with partialOutput once a content event went out.
      let produced = false;
      let done: Response | undefined;
      try {
        const answer = await response;
        const body = (spec.checkStream ? await spec.checkStream(answer) : answer).body;
        if (!body) throw new TypeError("response has no body");
        const assembled = protocol.assembleStream(protocol.readFrames(body), context);
        for await (const event of outputTool ? outputToolEvents(assembled, outputTool) : assembled) {
          // With structured output, `done` waits for the answer to be read (below, outside the guard:
          // an answer that is not the JSON asked for is a StructuredOutputError, not a provider failure).
          if (event.type === "done" && format) {
            done = event.response;
            continue;
          }
          produced ||= isContentEvent(event);
          yield event;
        }
      } catch (error) {
        throw toScrubbedProviderError(error, spec, options.signal, produced);
      }
      if (done) yield { type: "done", response: await readStructuredOutput(done, format) };
    },
  };
}

/** The upstream's request id header, when it sent one. */
function requestIdOf(headers: Headers): string | undefined {
  return (
    headers.get("request-id") ?? headers.get("x-request-id") ?? headers.get("x-amzn-requestid") ?? undefined
  );
}
