/**
 * Upstream deadlines, shared by every provider through the HTTP shell: no response headers within
 * `timeouts.firstByteMs`, or no body bytes for `timeouts.idleMs`, aborts the upstream request and fails
 * with a `ProviderError` of kind `timeout` — while the caller's own abort stays `aborted`.
 */
import { describe, expect, it } from "vitest";
import {
  anthropic,
  bedrock,
  collectStream,
  openaiChat,
  openaiResponses,
  type Provider,
  ProviderError,
  type Timeouts,
} from "../../src/index.ts";

const encoder = new TextEncoder();
const HISTORY = [{ role: "user" as const, content: "hi" }];

interface Upstream {
  fetch: typeof globalThis.fetch;
  signals: AbortSignal[];
}

/** A `fetch` whose answer never comes (`hang`), or whose body sends `first` and then nothing. */
function upstream(mode: "hang" | { first: string; contentType: string }): Upstream {
  const signals: AbortSignal[] = [];
  const fetchImpl = (async (_url: RequestInfo | URL, init?: RequestInit) => {
    const signal = init!.signal!;
    signals.push(signal);
    const aborted = new Promise<never>((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    if (mode === "hang") return aborted;
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(encoder.encode(mode.first));
          return;
        }
        await aborted.catch((reason: unknown) => controller.error(reason));
      },
    });
    return new Response(body, { headers: { "content-type": mode.contentType } });
  }) as typeof fetch;
  return { fetch: fetchImpl, signals };
}

const ANTHROPIC_START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n';
const CHAT_START =
  'data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n';

const PROVIDERS: [
  name: string,
  make: (fetch: typeof globalThis.fetch, timeouts?: Timeouts) => Provider,
  first: string,
][] = [
  [
    "anthropic",
    (fetch, timeouts) =>
      anthropic({
        apiKey: "sk-ant-timeouts-000000000",
        model: "claude-sonnet-4-6",
        fetch,
        ...(timeouts ? { timeouts } : {}),
      }),
    ANTHROPIC_START,
  ],
  [
    "openaiChat",
    (fetch, timeouts) =>
      openaiChat({
        apiKey: "sk-timeouts-0000000000000000",
        model: "gpt-4o",
        fetch,
        ...(timeouts ? { timeouts } : {}),
      }),
    CHAT_START,
  ],
  [
    "openaiResponses",
    (fetch, timeouts) =>
      openaiResponses({
        apiKey: "sk-timeouts-0000000000000000",
        model: "gpt-5",
        fetch,
        ...(timeouts ? { timeouts } : {}),
      }),
    'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}\n\n',
  ],
];

describe.each(PROVIDERS)("%s", (_name, make, first) => {
  it("no response headers within timeouts.firstByteMs: kind timeout, the request aborted (complete and stream)", async () => {
    for (const call of ["complete", "stream"] as const) {
      const { fetch, signals } = upstream("hang");
      const provider = make(fetch, { firstByteMs: 20 });
      const error = await (call === "complete"
        ? provider.complete(HISTORY)
        : collectStream(provider.stream(HISTORY))
      ).catch((caught: unknown) => caught);
      expect(ProviderError.is(error), call).toBe(true);
      expect(error).toMatchObject({ kind: "timeout", retryable: true, partialOutput: false });
      expect((error as Error).message).toContain("timeouts.firstByteMs");
      expect(signals[0]!.aborted).toBe(true);
    }
  });

  it("a body that goes quiet for timeouts.idleMs: kind timeout after the output so far (partialOutput when text went out)", async () => {
    const { fetch, signals } = upstream({ first, contentType: "text/event-stream" });
    // The call's option overrides the provider's setting.
    const provider = make(fetch, { idleMs: 60_000 });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of provider.stream(HISTORY, undefined, { timeouts: { idleMs: 25 } }))
        seen.push(event.type);
    })().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "timeout" });
    expect((error as Error).message).toContain("timeouts.idleMs");
    expect((error as ProviderError).partialOutput).toBe(seen.includes("text-delta"));
    expect(signals[0]!.aborted).toBe(true);
  });

  it("the caller's abort stays an abort, not a timeout", async () => {
    const { fetch } = upstream("hang");
    const controller = new AbortController();
    const pending = make(fetch, { firstByteMs: 60_000 }).complete(HISTORY, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 5);
    expect(await pending.catch((caught: unknown) => caught)).toMatchObject({ kind: "aborted" });
  });
});

it("bedrock goes through the same shell: a hanging endpoint is a timeout, its request aborted", async () => {
  const { fetch, signals } = upstream("hang");
  const provider = bedrock({
    region: "us-east-1",
    model: "amazon.nova-pro-v1:0",
    api: "converse",
    apiKey: "bedrock-timeouts-key-000000",
    fetch,
    timeouts: { firstByteMs: 20 },
  });
  expect(await provider.complete(HISTORY).catch((caught: unknown) => caught)).toMatchObject({
    kind: "timeout",
  });
  expect(signals[0]!.aborted).toBe(true);
});
