/**
 * The shared HTTP shell (src/providers/http-provider.ts), driven by a protocol written here against the
 * contract alone — the way a fifth protocol would be: request → fetch → the protocol's error mapping →
 * the 2xx read or the stream guard → every error scrubbed of the call's secrets.
 */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/core/provider-error.ts";
import type { Response as ModelResponse } from "../../src/core/response.ts";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import type { Usage } from "../../src/core/usage.ts";
import type {
  ErrorBodyInfo,
  Protocol,
  ProtocolContext,
  ProtocolRequest,
  ProtocolWire,
} from "../../src/protocols/protocol.ts";
import { replaysNative } from "../../src/protocols/replays-native.ts";
import { type HttpProviderSpec, httpProvider } from "../../src/providers/http-provider.ts";
import { byteStream } from "../helpers/byte-stream.ts";

const SECRET = "lines-secret-key-93be17c4";

/** "Lines": a toy wire. The body lists the turns; an answer is `{ text }`; a stream is text lines ending in `END`. */
interface LinesWire extends ProtocolWire {
  request: ProtocolRequest & { model: string; stream: boolean };
  body: { model: string; turns: string[]; stream?: true };
  response: { text: string; tokens?: number };
  frame: string;
  context: ProtocolContext & { origin: string };
  usage: { tokens?: number };
  stopReason: [reason: string | undefined];
}

async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop() ?? "";
    if (parts.length > 0) yield parts;
  }
  if (rest !== "") yield [rest];
}

function linesResponse(text: string, context: LinesWire["context"]): ModelResponse {
  const response: ModelResponse = {
    message: {
      role: "assistant",
      content: text,
      toolCalls: [],
      toolResults: [],
      synthetic: false,
      native: { protocol: "lines", origin: context.origin, model: context.model, blocks: [{ text }] },
    },
    usage: {},
    stopReason: "stop",
    model: context.model,
    provider: context.provider,
  };
  if (context.warnings?.length) response.warnings = [...context.warnings];
  return response;
}

const linesProtocol: Protocol<LinesWire> = {
  name: "lines",
  buildRequest: ({ messages, model, stream }) => {
    const turns = messages.map((message) => String((message as { content?: unknown }).content ?? ""));
    const body: LinesWire["body"] = { model, turns };
    if (stream) body.stream = true;
    return { body, warnings: turns.includes("") ? ["an empty turn"] : [] };
  },
  isResponse: (json): json is LinesWire["response"] => typeof (json as { text?: unknown }).text === "string",
  errorInResponse: (json) =>
    "failure" in json
      ? { kind: "overloaded", message: String((json as { failure: unknown }).failure) }
      : undefined,
  parseResponse: (json, context) => {
    if (json.text === "FAIL") {
      throw new ProviderError({
        kind: "server",
        message: `echoed ${SECRET}`,
        provider: context.provider,
        model: context.model,
      });
    }
    return linesResponse(json.text, context);
  },
  readFrames: lines,
  assembleStream: async function* (frames, context) {
    let text = "";
    for await (const batch of frames) {
      for (const line of Array.isArray(batch) ? batch : [batch]) {
        if (line === "END") {
          yield { type: "done", response: linesResponse(text, context) };
          return;
        }
        if (line.startsWith("ERROR ")) {
          throw new ProviderError({
            kind: "overloaded",
            message: line.slice(6),
            provider: context.provider,
            model: context.model,
          });
        }
        if (line.startsWith("USAGE")) {
          yield { type: "usage", usage: { outputTokens: 1 } };
          continue;
        }
        text += line;
        yield { type: "text-delta", text: line };
      }
    }
    throw new ProviderError({
      kind: "truncated",
      message: "no END",
      provider: context.provider,
      model: context.model,
    });
  },
  mapError: (status, body): ErrorBodyInfo => {
    const record = typeof body === "object" && body !== null ? (body as { problem?: unknown }) : {};
    const message = typeof record.problem === "string" ? record.problem : `HTTP ${status}`;
    return {
      kind: status === 418 ? "overloaded" : status === 429 ? "rate_limit" : "bad_request",
      message,
      code: "lines",
    };
  },
  mapUsage: (usage): Usage => (typeof usage?.tokens === "number" ? { outputTokens: usage.tokens } : {}),
  mapStopReason: (reason) => (reason === undefined || reason === "end" ? "stop" : "other"),
  replaysNative: (native, target) => replaysNative("lines", native, target),
};

interface Captured {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
}

function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
      signal: init?.signal ?? undefined,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

function linesProvider(fetch: typeof globalThis.fetch, extra: Partial<HttpProviderSpec<LinesWire>> = {}) {
  return httpProvider<LinesWire>({
    protocol: linesProtocol,
    provider: "lines-host",
    model: "echo-1",
    secrets: [SECRET],
    fetch,
    context: { provider: "lines-host", model: "echo-1", origin: "lines-host" },
    request: (call) => ({ ...call, model: "echo-1" }),
    endpoint: ({ stream }) => ({
      url: `https://lines.example/${stream ? "stream" : "answer"}`,
      headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
    }),
    ...extra,
  });
}

const HI = [{ role: "user" as const, content: "hi" }];

function textBody(text: string, chunk = 3): Response {
  return new Response(byteStream(new TextEncoder().encode(text), chunk), {
    headers: { "content-type": "text/plain" },
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(ProviderError.is(error)).toBe(true);
    return error as ProviderError;
  }
  throw new Error("expected a failure");
}

async function streamFailure(
  events: AsyncIterable<StreamEvent>,
  seen: StreamEvent[] = [],
): Promise<ProviderError> {
  return failure(
    (async () => {
      for await (const event of events) seen.push(event);
    })(),
  );
}

describe("httpProvider: a Provider for any protocol object", () => {
  it("names itself from the spec and speaks the protocol's name", () => {
    const provider = linesProvider(fakeFetch(() => Response.json({ text: "ok" })).fetch);
    expect(provider).toMatchObject({ name: "lines-host", model: "echo-1", protocol: "lines" });
  });

  it("complete(): the protocol's body to the endpoint, the answer parsed with the call's warnings", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json({ text: "hello" }));
    const tool = { name: "look", parameters: { type: "object", properties: {} } };
    const response = await linesProvider(fetch).complete([...HI, { role: "user", content: "" }], [tool]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: "https://lines.example/answer",
      body: { model: "echo-1", turns: ["hi", ""] },
    });
    expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${SECRET}`);
    expect(response).toMatchObject({
      message: { content: "hello", native: { protocol: "lines", origin: "lines-host", model: "echo-1" } },
      provider: "lines-host",
      warnings: ["an empty turn"],
    });
  });

  it("the protocol's request input gets the call with its tools normalised, and the stream flag", async () => {
    const seen: unknown[] = [];
    const { fetch } = fakeFetch(() => Response.json({ text: "ok" }));
    const provider = linesProvider(fetch, {
      request: (call) => {
        seen.push(call);
        return { ...call, model: "echo-1" };
      },
    });
    await provider.complete(HI, [{ name: "look", parameters: { type: "object" } }], { maxTokens: 5 });
    expect(seen[0]).toMatchObject({
      messages: HI,
      tools: [{ name: "look", parameters: { type: "object" } }],
      options: { maxTokens: 5 },
      stream: false,
    });
  });

  it("an error status: kind, message and code from the protocol's mapError; Retry-After from the shell; no secret", async () => {
    const { fetch } = fakeFetch(
      () =>
        new Response(JSON.stringify({ problem: `teapot said ${SECRET}` }), {
          status: 418,
          headers: { "retry-after": "3", "x-request-id": "req_9" },
        }),
    );
    const error = await failure(linesProvider(fetch).complete(HI));
    expect(error).toMatchObject({
      kind: "overloaded",
      status: 418,
      code: "lines",
      retryAfterMs: 3000,
      requestId: "req_9",
      provider: "lines-host",
      model: "echo-1",
    });
    expect(error.message).toMatch(/^lines-host 418: teapot said/);
    expect(JSON.stringify(error.toJSON())).not.toContain(SECRET);
  });

  it("a 200 that is not an answer: the failure errorInResponse finds in it, or invalid_response with the body", async () => {
    const reported = await failure(
      linesProvider(fakeFetch(() => Response.json({ failure: "busy" })).fetch).complete(HI),
    );
    expect(reported).toMatchObject({ kind: "overloaded", message: "lines-host: busy" });
    const strange = await failure(
      linesProvider(fakeFetch(() => Response.json({ other: 1 })).fetch).complete(HI),
    );
    expect(strange).toMatchObject({ kind: "invalid_response", upstreamBody: '{"other":1}' });
    expect(strange.message).toContain("lines");
    const notJson = await failure(
      linesProvider(fakeFetch(() => new Response(`<html>${SECRET}</html>`)).fetch).complete(HI),
    );
    expect(notJson.kind).toBe("invalid_response");
    expect(JSON.stringify(notJson.toJSON())).not.toContain(SECRET);
    const primitive = await failure(linesProvider(fakeFetch(() => new Response("42")).fetch).complete(HI));
    expect(primitive.kind).toBe("invalid_response");
  });

  it("an answer that reports a failure: parseResponse's ProviderError, scrubbed of the call's secrets", async () => {
    const error = await failure(
      linesProvider(fakeFetch(() => Response.json({ text: "FAIL" })).fetch).complete(HI),
    );
    expect(error.kind).toBe("server");
    expect(error.message).not.toContain(SECRET);
  });

  it("stream(): the protocol's frames and events, ending with done; the stream endpoint and flag", async () => {
    const { fetch, requests } = fakeFetch(() => textBody("Hel\nlo\nUSAGE\nEND\n"));
    const events: StreamEvent[] = [];
    for await (const event of linesProvider(fetch).stream(HI)) events.push(event);
    expect(requests[0]).toMatchObject({ url: "https://lines.example/stream", body: { stream: true } });
    expect(events.map((event) => event.type)).toEqual(["text-delta", "text-delta", "usage", "done"]);
    expect((events.at(-1) as { response: ModelResponse }).response.message.content).toBe("Hello");
  });

  it("the stream guard: a failure after output is partialOutput; before output (usage aside) it is not", async () => {
    const seen: StreamEvent[] = [];
    const late = await streamFailure(
      linesProvider(fakeFetch(() => textBody(`Hel\nERROR ${SECRET}\n`)).fetch).stream(HI),
      seen,
    );
    expect(seen.map((event) => event.type)).toEqual(["text-delta"]);
    expect(late).toMatchObject({ kind: "overloaded", partialOutput: true });
    expect(late.message).not.toContain(SECRET);
    const early = await streamFailure(
      linesProvider(fakeFetch(() => textBody("USAGE\nERROR busy\n")).fetch).stream(HI),
    );
    expect(early).toMatchObject({ kind: "overloaded", partialOutput: false });
    const cut = await streamFailure(linesProvider(fakeFetch(() => textBody("Hel\n")).fetch).stream(HI));
    expect(cut).toMatchObject({ kind: "truncated", partialOutput: true });
  });

  it("a streaming call's error status, a body-less 200 and a rejected fetch are ProviderErrors too", async () => {
    const status = await streamFailure(
      linesProvider(
        fakeFetch(() => new Response(JSON.stringify({ problem: "slow" }), { status: 429 })).fetch,
      ).stream(HI),
    );
    expect(status).toMatchObject({ kind: "rate_limit", status: 429, partialOutput: false });
    const empty = await streamFailure(linesProvider(fakeFetch(() => new Response(null)).fetch).stream(HI));
    expect(empty.kind).toBe("network");
    const rejected = await streamFailure(
      linesProvider(
        fakeFetch(() => {
          throw new TypeError(`fetch failed for ${SECRET}`);
        }).fetch,
      ).stream(HI),
    );
    expect(rejected.kind).toBe("network");
    expect(rejected.message).not.toContain(SECRET);
  });

  it("checkStream sees a streaming 2xx answer before its body is read, and may refuse it", async () => {
    const checked: string[] = [];
    const refusing = linesProvider(fakeFetch(() => textBody("END\n")).fetch, {
      checkStream: async (answer) => {
        checked.push(answer.headers.get("content-type") ?? "");
        throw new ProviderError({
          kind: "invalid_response",
          message: `not a stream ${SECRET}`,
          provider: "lines-host",
          model: "echo-1",
        });
      },
    });
    const error = await streamFailure(refusing.stream(HI));
    expect(checked).toEqual(["text/plain"]);
    expect(error).toMatchObject({ kind: "invalid_response" });
    expect(error.message).not.toContain(SECRET);
    // complete() is not a stream: the hook is not asked.
    await linesProvider(fakeFetch(() => Response.json({ text: "ok" })).fetch, {
      checkStream: async () => {
        throw new Error("asked for a whole answer");
      },
    }).complete(HI);
  });

  it("authorize adds credentials to the finished request (the body it signs is the one sent)", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json({ text: "ok" }));
    const signed: string[] = [];
    await linesProvider(fetch, {
      endpoint: () => ({
        url: "https://lines.example/answer",
        headers: { "content-type": "application/json" },
      }),
      authorize: (_url, body, headers) => {
        signed.push(body);
        headers.set("x-signature", `sig-${body.length}`);
        return headers;
      },
    }).complete(HI);
    expect(signed).toEqual([JSON.stringify(requests[0]!.body)]);
    expect(requests[0]!.headers.get("x-signature")).toBe(`sig-${signed[0]!.length}`);
  });

  it("the caller's signal aborts the call: kind aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { fetch } = fakeFetch(({ signal }) => {
      if (signal?.aborted) throw new DOMException("aborted", "AbortError");
      return Response.json({ text: "late" });
    });
    const error = await failure(linesProvider(fetch).complete(HI, undefined, { signal: controller.signal }));
    expect(error.kind).toBe("aborted");
  });

  it("a protocol object with the contract's members is all a new protocol needs", () => {
    expect(linesProtocol.mapUsage({ tokens: 3 })).toEqual({ outputTokens: 3 });
    expect(linesProtocol.mapStopReason("end")).toBe("stop");
    expect(
      linesProtocol.replaysNative(
        { protocol: "lines", origin: "o", model: "m", blocks: [] },
        { origin: "o", model: "m" },
      ),
    ).toBe(true);
  });
});
