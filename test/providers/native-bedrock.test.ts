/**
 * Bedrock `api: "invoke"`'s `.native`: a client's Messages body in InvokeModel's envelope (no `model`,
 * `stream` or `metadata`; `anthropic_version` added; the betas InvokeModel takes in the body's
 * `anthropic_beta`, the others reported in `droppedBetas`), SigV4-signed; the stream's events the decoded
 * chunk JSON text byte for byte (a recorded Bedrock stream); an exception frame a ProviderError;
 * CountTokens at the foundation model id with the base64 InvokeModel body.
 */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/index.ts";
import { bedrock, foundationModelId } from "../../src/providers/bedrock.ts";
import { type NativeEndpoint, nativeEndpointOf } from "../../src/providers/native.ts";
import { chunkFrame, concat, exceptionFrame, invokeFrames } from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";
import { parseAuthorization, referenceSigV4 } from "../helpers/sigv4-reference.ts";
import {
  ACCESS_KEY,
  type Captured,
  CLAUDE,
  fakeFetch,
  json,
  quiet,
  SECRET_KEY,
  SESSION_TOKEN,
  THINKING_TOOL_EVENTS,
} from "./bedrock.helpers.ts";
import { drain, drainFailing, recording } from "./native.helpers.ts";

const REGION = "us-east-1";
const HOST = `https://bedrock-runtime.${REGION}.amazonaws.com`;
const decoder = new TextDecoder();

const CLIENT_BODY = {
  model: "claude-sonnet-4-5-20250929",
  max_tokens: 4096,
  stream: true,
  system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
  messages: [
    {
      role: "assistant",
      content: [{ type: "thinking", thinking: "Hmm.", signature: "EqQBCkYIBxgCKkBsig+/==" }],
    },
    { role: "user", content: [{ type: "text", text: "Go on ✓" }] },
  ],
  thinking: { type: "enabled", budget_tokens: 1024 },
  metadata: { user_id: "user_abc" },
};

function native(
  respond: (captured: Captured) => Response | Promise<Response>,
  settings: { betas?: string[]; model?: string } = {},
) {
  const { fetch, requests } = fakeFetch(respond);
  const provider = bedrock({
    region: REGION,
    model: settings.model ?? CLAUDE,
    api: "invoke",
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
    ...(settings.betas ? { betas: settings.betas } : {}),
    fetch,
    ...quiet,
  });
  const endpoint = nativeEndpointOf(provider, "anthropic-messages") as NativeEndpoint;
  return { endpoint, requests };
}

const eventStreamAnswer = (bytes: Uint8Array, sizes?: readonly number[]) =>
  new Response(byteStream(bytes, sizes ?? bytes.length), {
    headers: { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "bedrock-req-1" },
  });

/**
 * The `bytes` of every `chunk` frame of an event-stream body, decoded — by hand, independently of src/
 * (prelude, string headers, payload; CRCs not checked): what the native events must carry.
 */
function chunkTexts(body: Uint8Array): string[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const texts: string[] = [];
  for (let at = 0; at < body.length; ) {
    const total = view.getUint32(at);
    const headersLength = view.getUint32(at + 4);
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < at + 12 + headersLength; ) {
      const nameLength = body[h]!;
      const name = decoder.decode(body.subarray(h + 1, h + 1 + nameLength));
      const type = body[h + 1 + nameLength]!;
      if (type !== 7) throw new Error(`header type ${type}`);
      const valueLength = view.getUint16(h + 2 + nameLength);
      headers[name] = decoder.decode(body.subarray(h + 4 + nameLength, h + 4 + nameLength + valueLength));
      h += 4 + nameLength + valueLength;
    }
    const payload = decoder.decode(body.subarray(at + 12 + headersLength, at + total - 4));
    if (headers[":event-type"] === "chunk") {
      const binary = atob((JSON.parse(payload) as { bytes: string }).bytes);
      texts.push(decoder.decode(Uint8Array.from(binary, (character) => character.charCodeAt(0))));
    }
    at += total;
  }
  return texts;
}

describe("bedrock invoke .native: the request", () => {
  it("is the Anthropic Messages endpoint of origin bedrock; converse has none", () => {
    const { endpoint } = native(() => json({}));
    expect(endpoint).toMatchObject({ protocol: "anthropic-messages", origin: "bedrock" });
    const converse = bedrock({
      region: REGION,
      model: CLAUDE,
      api: "converse",
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
      ...quiet,
    });
    expect(nativeEndpointOf(converse, "anthropic-messages")).toBeUndefined();
  });

  it("the body: no model, stream or metadata; anthropic_version added; the rest as the client wrote it", async () => {
    for (const stream of [false, true]) {
      const { endpoint, requests } = native(() =>
        stream ? eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)) : json({}),
      );
      const answer = await endpoint.send({ body: CLIENT_BODY, stream }).catch((error: unknown) => error);
      if (!stream)
        expect(answer).toBeInstanceOf(ProviderError); // `{}` is no message: invalid_response
      else await drain((answer as Awaited<ReturnType<NativeEndpoint["send"]>>).events);
      const { model: _model, stream: _stream, metadata: _metadata, ...rest } = CLIENT_BODY;
      expect(requests[0]!.json).toEqual({ anthropic_version: "bedrock-2023-05-31", ...rest });
      expect(requests[0]!.url).toBe(
        `${HOST}/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/${stream ? "invoke-with-response-stream" : "invoke"}`,
      );
      expect(requests[0]!.headers.has("anthropic-beta")).toBe(false);
    }
  });

  it("metadata left out is a warning; without metadata, none", async () => {
    const { endpoint } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)));
    const withMetadata = await endpoint.send({ body: CLIENT_BODY, stream: true });
    expect(withMetadata.warnings).toEqual([expect.stringContaining("metadata")]);
    const { metadata: _metadata, ...plain } = CLIENT_BODY;
    const without = await endpoint.send({ body: plain, stream: true });
    expect(without.warnings).toEqual([]);
  });

  it("cache_control.scope (a first-party beta's field InvokeModel refuses) is left out of every breakpoint, with a warning; the breakpoints stay", async () => {
    const { endpoint, requests } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)));
    const { metadata: _metadata, ...plain } = CLIENT_BODY;
    const scoped = { type: "ephemeral", scope: "global" };
    const body = {
      ...plain,
      system: [{ type: "text", text: "You are terse.", cache_control: scoped }],
      tools: [{ name: "f", input_schema: { type: "object" }, cache_control: scoped }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h", scope: "org" } },
            { type: "text", text: "no breakpoint" },
          ],
        },
      ],
    };
    const before = JSON.stringify(body);
    const answer = await endpoint.send({ body, stream: true });
    const sent = requests[0]!.json as typeof body;
    expect(sent.system[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(sent.tools[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(sent.messages[0]!.content[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(sent.messages[0]!.content[1]).toEqual({ type: "text", text: "no breakpoint" });
    expect(answer.warnings).toEqual([
      "Bedrock InvokeModel takes no cache_control.scope; left out of 3 breakpoint(s)",
    ]);
    // The client's body object is not changed (a retry on another member sends it as it was).
    expect(JSON.stringify(body)).toBe(before);
  });

  it("betas: those InvokeModel takes in the body's anthropic_beta (advanced-tool-use renamed), the others dropped and listed", async () => {
    const { endpoint, requests } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)), {
      betas: ["context-1m-2025-08-07"],
    });
    const answer = await endpoint.send({
      body: { ...CLIENT_BODY, anthropic_beta: ["token-efficient-tools-2025-02-19"] },
      stream: true,
      betas: [
        "claude-code-20250219,interleaved-thinking-2025-05-14",
        "advanced-tool-use-2025-11-20",
        "oauth-2025-04-20",
        "context-1m-2025-08-07",
        "fine-grained-tool-streaming-2025-05-14",
      ],
    });
    expect(requests[0]!.json.anthropic_beta).toEqual([
      "context-1m-2025-08-07",
      "interleaved-thinking-2025-05-14",
      "tool-search-tool-2025-10-19",
      "fine-grained-tool-streaming-2025-05-14",
      "token-efficient-tools-2025-02-19",
    ]);
    expect(answer.droppedBetas).toEqual(["claude-code-20250219", "oauth-2025-04-20"]);
    expect(requests[0]!.headers.has("anthropic-beta")).toBe(false);
  });

  it("no beta asked and none configured: no anthropic_beta", async () => {
    const { endpoint, requests } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)));
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: true, betas: ["claude-code-20250219"] });
    expect(requests[0]!.json).not.toHaveProperty("anthropic_beta");
    expect(answer.droppedBetas).toEqual(["claude-code-20250219"]);
  });

  it("is SigV4-signed: the Authorization header recomputed independently matches; no secret in the headers", async () => {
    const { endpoint, requests } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS)));
    await drain((await endpoint.send({ body: CLIENT_BODY, stream: true })).events);
    const request = requests[0]!;
    const amzDate = request.headers.get("x-amz-date")!;
    const parts = parseAuthorization(request.headers.get("authorization")!);
    expect(parts.credential).toBe(`${ACCESS_KEY}/${amzDate.slice(0, 8)}/${REGION}/bedrock/aws4_request`);
    const reference = await referenceSigV4({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: REGION,
      service: "bedrock",
      amzDate,
      signedHeaders: parts.signedHeaders,
    });
    expect(request.headers.get("authorization")).toBe(reference.authorization);
    expect([...request.headers.values()].join(" ")).not.toContain(SECRET_KEY);
  });
});

describe("bedrock invoke .native: the stream", () => {
  it("the recorded InvokeModelWithResponseStream: the decoded chunk texts byte for byte, then the Response", async () => {
    const body = (await recording("bedrock/openllmetry__test_anthropic_3_completion_streaming.yaml")).body;
    const expected = chunkTexts(body);
    expect(expected.length).toBeGreaterThan(5);
    const { endpoint } = native(() => eventStreamAnswer(body, [1, 3, 7, 13, 29, 61, 2]), {
      model: "anthropic.claude-3-sonnet-20240229-v1:0",
    });
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
    expect(answer.requestId).toBe("bedrock-req-1");
    const events = await drain(answer.events);
    expect(events.map((event) => event.data)).toEqual(expected);
    expect(events.map((event) => event.event)).toEqual(
      expected.map((text) => (JSON.parse(text) as { type: string }).type),
    );
    expect(events.at(-1)!.event).toBe("message_stop");
    // Bedrock's own extra (the invocation metrics) is in the text as sent.
    expect(events.at(-1)!.data).toContain("amazon-bedrock-invocationMetrics");
    expect(answer.response()?.usage?.outputTokens).toBeGreaterThan(0);
  });

  it("chunk texts with odd spacing and unicode are kept as sent, not re-serialised", async () => {
    const texts = [
      '{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Grüße \\u00e9 🌍"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}',
      '{"type":"message_stop"}',
    ];
    const { endpoint } = native(() =>
      eventStreamAnswer(concat(texts.map((text, index) => chunkFrame(text, index)))),
    );
    const events = await drain((await endpoint.send({ body: CLIENT_BODY, stream: true })).events);
    expect(events.map((event) => event.data)).toEqual(texts);
  });

  it("an exception frame mid-stream is a ProviderError after the events before it, no secret in it", async () => {
    const frames = concat([
      invokeFrames(THINKING_TOOL_EVENTS.slice(0, 4)),
      exceptionFrame("throttlingException", `Too many tokens (${SECRET_KEY})`),
    ]);
    const { endpoint } = native(() => eventStreamAnswer(frames));
    const { events, error } = await drainFailing(
      (await endpoint.send({ body: CLIENT_BODY, stream: true })).events,
    );
    expect(events.map((event) => event.data)).toEqual(
      THINKING_TOOL_EVENTS.slice(0, 4).map((event) => JSON.stringify(event)),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "rate_limit", partialOutput: true, provider: "bedrock" });
    expect(JSON.stringify((error as ProviderError).toJSON())).not.toContain(SECRET_KEY);
    expect((error as Error).message).not.toContain(SECRET_KEY);
  });

  it("an exception frame before any content: partialOutput false", async () => {
    const frames = concat([
      invokeFrames(THINKING_TOOL_EVENTS.slice(0, 1)),
      exceptionFrame("modelStreamErrorException", "The model stream failed."),
    ]);
    const { endpoint } = native(() => eventStreamAnswer(frames));
    const { events, error } = await drainFailing(
      (await endpoint.send({ body: CLIENT_BODY, stream: true })).events,
    );
    expect(events.map((event) => event.event)).toEqual(["message_start"]);
    expect(error).toMatchObject({ partialOutput: false });
  });

  it("a stream cut before message_stop is truncated", async () => {
    const { endpoint } = native(() => eventStreamAnswer(invokeFrames(THINKING_TOOL_EVENTS.slice(0, -2))));
    const { events, error } = await drainFailing(
      (await endpoint.send({ body: CLIENT_BODY, stream: true })).events,
    );
    expect(events).toHaveLength(THINKING_TOOL_EVENTS.length - 2);
    expect(error).toMatchObject({ kind: "truncated", partialOutput: true });
  });

  it("a failure before the stream (429 ThrottlingException) is the mapped ProviderError", async () => {
    const { endpoint } = native(() =>
      json(
        { message: `Rate exceeded for ${ACCESS_KEY}` },
        { status: 429, headers: { "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/" } },
      ),
    );
    const error = await endpoint.send({ body: CLIENT_BODY, stream: true }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, code: "ThrottlingException" });
    expect(JSON.stringify((error as ProviderError).toJSON())).not.toContain(ACCESS_KEY);
  });
});

describe("bedrock invoke .native: CountTokens", () => {
  it("POSTs {input:{invokeModel:{body: base64 of the InvokeModel JSON}}} to the foundation model's count-tokens", async () => {
    const { endpoint, requests } = native(() => json({ inputTokens: 1234 }));
    const { max_tokens: _max, ...noMax } = CLIENT_BODY;
    const count = await endpoint.countTokens!({
      body: noMax,
      betas: ["interleaved-thinking-2025-05-14", "claude-code-20250219"],
    });
    expect(count).toBe(1234);
    const request = requests[0]!;
    // The cross-region profile's prefix is gone: CountTokens takes the foundation model id.
    expect(request.url).toBe(`${HOST}/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens`);
    expect(Object.keys(request.json)).toEqual(["input"]);
    const encoded = (request.json as { input: { invokeModel: { body: string } } }).input.invokeModel.body;
    const binary = atob(encoded);
    const inner = JSON.parse(decoder.decode(Uint8Array.from(binary, (character) => character.charCodeAt(0))));
    const { model: _model, stream: _stream, metadata: _metadata, max_tokens: _m, ...rest } = CLIENT_BODY;
    expect(inner).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      ...rest,
      anthropic_beta: ["interleaved-thinking-2025-05-14"],
      // None sent: above the thinking budget (1024), as InvokeModel requires.
      max_tokens: 1025,
    });
    // Signed like every Bedrock call.
    const parts = parseAuthorization(request.headers.get("authorization")!);
    const reference = await referenceSigV4({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: REGION,
      service: "bedrock",
      amzDate: request.headers.get("x-amz-date")!,
      signedHeaders: parts.signedHeaders,
    });
    expect(request.headers.get("authorization")).toBe(reference.authorization);
  });

  it("a client's max_tokens is kept", async () => {
    const { endpoint, requests } = native(() => json({ inputTokens: 5 }));
    await endpoint.countTokens!({ body: CLIENT_BODY });
    const encoded = (requests[0]!.json as { input: { invokeModel: { body: string } } }).input.invokeModel
      .body;
    expect(JSON.parse(atob(encoded)).max_tokens).toBe(4096);
  });

  it("with thinking on, max_tokens exceeds the budget (the client's when larger, none sent: budget + 1)", async () => {
    const { endpoint, requests } = native(() => json({ inputTokens: 5 }));
    const { max_tokens: _max, ...noMax } = CLIENT_BODY;
    const thinking = { type: "enabled", budget_tokens: 1024 };
    await endpoint.countTokens!({ body: { ...noMax, thinking } });
    await endpoint.countTokens!({ body: { ...CLIENT_BODY, thinking } });
    await endpoint.countTokens!({ body: { ...noMax, thinking: { type: "adaptive" } } });
    const sent = requests.map(
      (request) =>
        JSON.parse(
          atob((request.json as { input: { invokeModel: { body: string } } }).input.invokeModel.body),
        ).max_tokens,
    );
    expect(sent).toEqual([1025, 4096, 1]);
  });

  it("an answer without inputTokens is invalid_response", async () => {
    for (const answer of [{ input_tokens: 5 }, { inputTokens: 1.5 }, {}]) {
      const { endpoint } = native(() => json(answer));
      const error = await endpoint.countTokens!({ body: CLIENT_BODY }).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(answer)).toMatchObject({ kind: "invalid_response" });
    }
  });

  it("a model that does not count is the mapped ValidationException", async () => {
    const { endpoint } = native(() =>
      json(
        { message: "The provided model doesn't support counting tokens." },
        { status: 400, headers: { "x-amzn-errortype": "ValidationException" } },
      ),
    );
    const error = await endpoint.countTokens!({ body: CLIENT_BODY }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "bad_request", status: 400, code: "ValidationException" });
  });
});

describe("foundationModelId", () => {
  it("strips a cross-region inference profile prefix and nothing else", () => {
    expect(foundationModelId(CLAUDE)).toBe("anthropic.claude-sonnet-4-5-20250929-v1:0");
    for (const prefix of ["us", "eu", "apac", "jp", "au", "ca", "us-gov", "global"]) {
      expect(foundationModelId(`${prefix}.anthropic.claude-opus-4-1-20250805-v1:0`)).toBe(
        "anthropic.claude-opus-4-1-20250805-v1:0",
      );
    }
    for (const kept of [
      "anthropic.claude-3-sonnet-20240229-v1:0",
      "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123",
      "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
      "usx.anthropic.claude",
    ]) {
      expect(foundationModelId(kept)).toBe(kept);
    }
  });
});
