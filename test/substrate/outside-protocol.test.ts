/**
 * A fifth protocol from outside the package — ndjson-chat (test/fixtures-code/ndjson-chat/), written only
 * against `modelwire` and `modelwire/protocols` — served the way an application serves a built-in one:
 * registered with `createProvider(config, { factories })`, called whole and streamed, its own fields
 * checked by its own schema, and at the head of a `fallback` chain. The upstream is faked at the fetch
 * layer; nothing here reaches into src/.
 */
import {
  collectStream,
  createProvider,
  type MessageInput,
  ProviderError,
  protocolOf,
  ValidationError,
} from "modelwire";
import { describe, expect, it, vi } from "vitest";
import { ndjsonChatFactory } from "../fixtures-code/ndjson-chat/provider.ts";
import { ndjsonAnswer, ndjsonError, ndjsonStream } from "../fixtures-code/ndjson-chat/upstream.ts";

const KEY = "nd-secret-key-5d1c0a7e";
const HI: MessageInput[] = [{ role: "user", content: "hi" }];
const factories = { "ndjson-chat": ndjsonChatFactory };

const OPENAI_OK = {
  id: "c1",
  object: "chat.completion",
  model: "gpt-4.1",
  choices: [{ index: 0, message: { role: "assistant", content: "from openai" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1 },
};

interface Call {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch answering with `answer`, recording every call. */
function upstream(answer: (call: Call) => Response) {
  const calls: Call[] = [];
  const fetchStub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const call = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    };
    calls.push(call);
    return answer(call);
  }) as typeof fetch;
  return { fetch: fetchStub, calls };
}

const CONFIG = {
  protocol: "ndjson-chat",
  model: "nd-1",
  apiKey: KEY,
  baseURL: "https://nd.upstream.test/v1",
  tenant: "acme",
  region: "eu-1",
};

describe("an outside protocol through createProvider", () => {
  it("complete(): the request is the protocol's body, sent with its own fields; the answer is a Response", async () => {
    const { fetch, calls } = upstream(() => ndjsonAnswer("Hello from outside"));
    const provider = createProvider(CONFIG, { factories, fetch });
    expect([provider.name, provider.protocol, provider.model]).toEqual([
      "ndjson-chat",
      "ndjson-chat",
      "nd-1",
    ]);
    const response = await provider.complete(
      [{ role: "system", content: "Be brief." }, ...HI],
      [{ name: "weather", parameters: { type: "object" } }],
      { maxTokens: 50, thinking: "adaptive" },
    );
    expect(calls[0]!.url).toBe("https://nd.upstream.test/v1/chat");
    expect(calls[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(calls[0]!.headers.get("x-tenant")).toBe("acme");
    expect(calls[0]!.headers.get("x-region")).toBe("eu-1");
    expect(calls[0]!.body).toEqual({
      model: "nd-1",
      system: "Be brief.",
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "weather", parameters: { type: "object" } }],
      max_tokens: 50,
    });
    expect(response).toMatchObject({
      provider: "ndjson-chat",
      model: "nd-1",
      stopReason: "stop",
      usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 3 },
      warnings: ["thinking: not supported by ndjson-chat; left out"],
      message: {
        content: "Hello from outside",
        native: { protocol: "ndjson-chat", origin: "nd.upstream.test", model: "nd-1" },
      },
    });
  });

  it("stream(): its own framing, assembled as it arrives, ending with done; the next turn replays native", async () => {
    const { fetch, calls } = upstream(() => ndjsonStream(["Hel", "lo"]));
    const provider = createProvider(CONFIG, { factories, fetch });
    const texts: string[] = [];
    const response = await collectStream(provider.stream(HI), {
      onEvent: (event) => {
        if (event.type === "text-delta") texts.push(event.text);
      },
    });
    expect(texts).toEqual(["Hel", "lo"]);
    expect(calls[0]!.body.stream).toBe(true);
    expect(response.message.native?.blocks).toEqual([{ type: "text", text: "Hello" }]);

    // Same protocol, origin and model: the turn goes back verbatim; to another model it is rebuilt.
    const history = [
      ...HI,
      { ...response.message, content: "neutral text" },
      { role: "user", content: "more" },
    ];
    await collectStream(provider.stream(history as MessageInput[]));
    expect((calls[1]!.body.messages as unknown[])[1]).toEqual({
      role: "assistant",
      parts: [{ type: "text", text: "Hello" }],
    });
    const other = createProvider({ ...CONFIG, model: "nd-2" }, { factories, fetch });
    const rebuilt = await collectStream(other.stream(history as MessageInput[]));
    expect((calls[2]!.body.messages as unknown[])[1]).toEqual({
      role: "assistant",
      parts: [{ type: "text", text: "neutral text" }],
    });
    expect(rebuilt.warnings?.[0]).toContain("rebuilt from its text and tool calls");
  });

  it("errors are ProviderErrors of the protocol's kinds, without the key", async () => {
    const { fetch } = upstream(() => ndjsonError(503, "busy", `busy, key ${KEY}`));
    const error = await createProvider(CONFIG, { factories, fetch })
      .complete(HI)
      .catch((caught: unknown) => caught);
    expect(ProviderError.is(error)).toBe(true);
    expect(error).toMatchObject({ kind: "overloaded", status: 503, code: "busy", provider: "ndjson-chat" });
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it("its config is checked by its own schema, and its name is known to protocolOf", () => {
    const refusal = (config: unknown) => {
      try {
        createProvider(config, { factories, warn: () => {} });
      } catch (error) {
        if (ValidationError.is(error)) return error.issues;
      }
      throw new Error("expected a ValidationError");
    };
    expect(refusal({ ...CONFIG, tenant: undefined })[0]!.path).toBe("tenant");
    expect(refusal({ ...CONFIG, safety: "none" })[0]!.path).toBe("safety");
    expect(refusal({ ...CONFIG, endpoint: "vllm" })).toEqual([
      { path: "endpoint", message: 'not a setting of protocol "ndjson-chat" (only openai-chat)' },
    ]);
    expect(refusal({ ...CONFIG, protocol: "anthropic" })).toEqual([
      { path: "tenant", message: 'not a setting of protocol "anthropic" (only ndjson-chat)' },
      { path: "region", message: 'not a setting of protocol "anthropic" (only bedrock, ndjson-chat)' },
    ]);
    const warn = vi.fn();
    expect(protocolOf("ndjson", { factories })).toBe("ndjson-chat");
    expect(protocolOf("ndjson-caht", { factories, warn })).toBeUndefined();
    expect(warn.mock.calls[0]![0]).toContain('did you mean "ndjson-chat"?');
  });
});

describe("an outside protocol at the head of a fallback chain", () => {
  const chain = (fetchStub: typeof fetch) =>
    createProvider(
      {
        ...CONFIG,
        triggers: ["overloaded"],
        fallback: [{ protocol: "openai-chat", model: "gpt-4.1", apiKey: "sk-other-key-000000" }],
      },
      { factories, fetch: fetchStub },
    );

  it("serves when it answers; falls through on its overload, and servedBy says so", async () => {
    const healthy = upstream(() => ndjsonAnswer("from outside"));
    const served = await chain(healthy.fetch).complete(HI);
    expect(served.message.content).toBe("from outside");
    expect(served.servedBy).toMatchObject({ index: 0, provider: "ndjson-chat" });

    const busy = upstream(({ url }) =>
      url.startsWith("https://nd.") ? ndjsonError(503, "busy", "busy") : Response.json(OPENAI_OK),
    );
    const response = await chain(busy.fetch).complete(HI);
    expect(response.message.content).toBe("from openai");
    expect(response.servedBy).toMatchObject({
      index: 1,
      provider: "openai",
      failures: [{ kind: "overloaded", provider: "ndjson-chat", index: 0 }],
    });
    expect(busy.calls.map((call) => new URL(call.url).host)).toEqual(["nd.upstream.test", "api.openai.com"]);
  });

  it("a stream switches only before its first output: a failure after it is raised with partialOutput", async () => {
    const early = upstream(({ url }) =>
      url.startsWith("https://nd.")
        ? ndjsonStream([], { code: "busy", message: "busy" })
        : new Response(
            `data: ${JSON.stringify({ id: "c1", model: "gpt-4.1", choices: [{ index: 0, delta: { content: "from openai" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
            { headers: { "content-type": "text/event-stream" } },
          ),
    );
    const switched = await collectStream(chain(early.fetch).stream(HI));
    expect(switched.message.content).toBe("from openai");

    const late = upstream(() => ndjsonStream(["partial "], { code: "busy", message: "busy" }));
    const texts: string[] = [];
    const failure = await collectStream(chain(late.fetch).stream(HI), {
      onEvent: (event) => {
        if (event.type === "text-delta") texts.push(event.text);
      },
    }).catch((caught: unknown) => caught);
    expect(texts).toEqual(["partial "]);
    expect(failure).toMatchObject({ name: "ProviderError", kind: "overloaded", partialOutput: true });
    expect(late.calls).toHaveLength(1);
  });
});
