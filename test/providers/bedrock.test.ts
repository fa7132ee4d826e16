import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it, vi } from "vitest";
import {
  anthropic,
  anthropicModelProfile,
  collectStream,
  type MessageInput,
  type Response as ModelResponse,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";
import { coalesceDeltas } from "../../src/protocols/index.ts";
import { type BedrockSettings, bedrock, encodeModelId } from "../../src/providers/bedrock.ts";
import {
  concat,
  converseEventFrame,
  converseFrames,
  encodeFrame,
  exceptionFrame,
  invokeFrames,
} from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../helpers/fixtures.ts";
import { parseAuthorization, referenceSigV4 } from "../helpers/sigv4-reference.ts";

type Json = Record<string, unknown>;

const ACCESS_KEY = "AKIDEXAMPLE";
const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN/abc+def==";
const BEARER = "bedrock-api-key-ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl";
const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const HISTORY: MessageInput[] = [{ role: "user", content: "What is the weather in Paris?" }];

interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  json: Json;
}

function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = String(init?.body ?? "");
    const captured: Captured = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body,
      json: JSON.parse(body) as Json,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

const eventStream = (bytes: Uint8Array, sizes?: readonly number[]) =>
  new Response(byteStream(bytes, sizes ?? bytes.length), {
    headers: { "content-type": "application/vnd.amazon.eventstream" },
  });

const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

const quiet = { logger: false as const };

async function collect(
  events: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  const done = seen.at(-1);
  if (done?.type !== "done") throw new Error("no done event");
  return { events: seen, response: done.response };
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

// ---------------------------------------------------------------------------------------------------
// Streams used below.

const SIGNATURE = "EqQBCkYIBxgCKkBsignedThinkingSignature+/==";
const THINKING_TOOL_EVENTS: Json[] = [
  {
    type: "message_start",
    message: {
      id: "msg_bdrk_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 50,
        output_tokens: 1,
        cache_read_input_tokens: 10,
        cache_creation_input_tokens: 0,
      },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants " } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "the weather." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
  },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Let me check." } },
  { type: "content_block_stop", index: 2 },
  {
    type: "content_block_start",
    index: 3,
    content_block: { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: {} },
  },
  { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '{"city":' } },
  { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
  { type: "content_block_stop", index: 3 },
  {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 42 },
  },
  { type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 50, outputTokenCount: 42 } },
];

const CONVERSE_EVENTS: Json[] = [
  { messageStart: { role: "assistant" } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "Weather " } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "lookup." } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: SIGNATURE } } } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Checking " } } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Paris." } } },
  { contentBlockStop: { contentBlockIndex: 1 } },
  {
    contentBlockStart: {
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: "tooluse_abc123", name: "weather" } },
    },
  },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '{"ci' } } } },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: 'ty":"Paris"}' } } } },
  { contentBlockStop: { contentBlockIndex: 2 } },
  { messageStop: { stopReason: "tool_use" } },
  {
    metadata: {
      usage: {
        inputTokens: 30,
        outputTokens: 20,
        totalTokens: 60,
        cacheReadInputTokens: 10,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 100 },
    },
  },
];

const CONVERSE_JSON = {
  output: {
    message: {
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "Weather lookup.", signature: SIGNATURE } } },
        { text: "Checking Paris." },
        { toolUse: { toolUseId: "tooluse_abc123", name: "weather", input: { city: "Paris" } } },
      ],
    },
  },
  stopReason: "tool_use",
  usage: {
    inputTokens: 30,
    outputTokens: 20,
    totalTokens: 60,
    cacheReadInputTokens: 10,
    cacheWriteInputTokens: 0,
  },
  metrics: { latencyMs: 100 },
};

function invokeMessageJson(events: Json[]): Json {
  // The whole message a non-streaming InvokeModel returns for the same output.
  const start = (events[0]!.message as Json) ?? {};
  return {
    ...start,
    content: [
      { type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE },
      { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
    usage: {
      input_tokens: 50,
      output_tokens: 42,
      cache_read_input_tokens: 10,
      cache_creation_input_tokens: 0,
    },
  };
}

// ---------------------------------------------------------------------------------------------------

describe("bedrock(): configuration and the auth choice", () => {
  it("bearer auth without a key: a ValidationError naming apiKey and AWS_BEARER_TOKEN_BEDROCK, before any request", () => {
    const { fetch, requests } = fakeFetch(() => json({}));
    for (const env of [
      undefined,
      {},
      { AWS_BEARER_TOKEN_BEDROCK: "" },
      { AWS_BEARER_TOKEN_BEDROCK: "   " },
    ]) {
      let error: unknown;
      try {
        bedrock({
          region: "us-east-1",
          model: CLAUDE,
          api: "invoke",
          auth: "bearer",
          env,
          apiKey: "",
          fetch,
          ...quiet,
        });
      } catch (caught) {
        error = caught;
      }
      expect(ValidationError.is(error)).toBe(true);
      expect((error as Error).message).toContain("AWS_BEARER_TOKEN_BEDROCK");
      expect((error as Error).message).toContain("apiKey");
      expect((error as ValidationError).issues[0]!.path).toBe("apiKey");
    }
    expect(requests).toHaveLength(0);
  });

  it("no credentials at all: a ValidationError naming both ways", () => {
    expect(() => bedrock({ region: "us-east-1", model: CLAUDE, api: "converse", ...quiet })).toThrow(
      /credentials.*apiKey.*AWS_BEARER_TOKEN_BEDROCK/,
    );
  });

  it("sigv4 without (complete) credentials is refused field by field", () => {
    expect(() =>
      bedrock({ region: "us-east-1", model: CLAUDE, api: "converse", auth: "sigv4", ...quiet }),
    ).toThrow(/credentials/);
    let error: unknown;
    try {
      bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "converse",
        credentials: { accessKeyId: "", secretAccessKey: " " },
        ...quiet,
      });
    } catch (caught) {
      error = caught;
    }
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      "credentials.accessKeyId",
      "credentials.secretAccessKey",
    ]);
  });

  it("invoke takes Claude models only, and says to use converse", () => {
    expect(() =>
      bedrock({
        region: "us-east-1",
        model: "amazon.nova-pro-v1:0",
        api: "invoke",
        apiKey: BEARER,
        ...quiet,
      }),
    ).toThrow(/api: "converse"/);
    // An application inference profile of a Claude model: allowed once the caller says so.
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123";
    expect(() =>
      bedrock({ region: "us-east-1", model: arn, api: "invoke", apiKey: BEARER, ...quiet }),
    ).toThrow(ValidationError);
    expect(
      bedrock({
        region: "us-east-1",
        model: arn,
        api: "invoke",
        apiKey: BEARER,
        profile: anthropicModelProfile("claude-sonnet-4-5"),
        ...quiet,
      }).protocol,
    ).toBe("anthropic-messages");
  });

  it("region, api and model are checked", () => {
    const base = { model: CLAUDE, apiKey: BEARER, ...quiet };
    expect(() => bedrock({ ...base, api: "converse" } as BedrockSettings)).toThrow(/region/);
    expect(() => bedrock({ ...base, api: "converse", region: "us-east-1.evil.com/x" })).toThrow(/region/);
    expect(() => bedrock({ ...base, region: "us-east-1" } as BedrockSettings)).toThrow(/api/);
    expect(() => bedrock({ ...base, api: "converse", region: "us-east-1", model: "" })).toThrow(/model/);
    expect(() => bedrock({ ...base, api: "converse", endpoint: "not a url" })).toThrow(/endpoint/);
    // Bearer auth against a custom endpoint needs no region; SigV4 always does.
    expect(bedrock({ ...base, api: "converse", endpoint: "http://localhost:8080" }).name).toBe("bedrock");
    expect(() =>
      bedrock({
        model: CLAUDE,
        api: "converse",
        endpoint: "http://localhost:8080",
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
        ...quiet,
      }),
    ).toThrow(/region/);
  });

  it("logs the choice once per provider, never a credential", async () => {
    const lines: string[] = [];
    const { fetch } = fakeFetch(() => json(CONVERSE_JSON));
    const logger = (line: string) => lines.push(line);
    const sigv4 = bedrock({
      region: "eu-west-1",
      model: CLAUDE,
      api: "converse",
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
      apiKey: BEARER,
      fetch,
      logger,
    });
    await sigv4.complete(HISTORY);
    await sigv4.complete(HISTORY);
    bedrock({
      region: "eu-west-1",
      model: CLAUDE,
      api: "converse",
      env: { AWS_BEARER_TOKEN_BEDROCK: BEARER },
      logger,
    });
    bedrock({ region: "eu-west-1", model: CLAUDE, api: "converse", auth: "bearer", apiKey: BEARER, logger });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/SigV4 with credentials from settings with a session token/);
    expect(lines[0]).toMatch(/auth: "bearer"/);
    expect(lines[1]).toMatch(/bearer API key from env\.AWS_BEARER_TOKEN_BEDROCK/);
    expect(lines[2]).toMatch(/^modelwire bedrock converse .*: auth = bearer API key from settings\.apiKey$/);
    for (const line of lines) {
      for (const secret of [ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, BEARER])
        expect(line).not.toContain(secret);
    }
  });

  it("prints nothing by default: no logger, no console output", async () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      const { fetch } = fakeFetch(() => json(CONVERSE_JSON));
      const provider = bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "converse",
        apiKey: BEARER,
        fetch,
      });
      await provider.complete(HISTORY);
      await provider.complete(HISTORY);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe("bedrock(): URLs and bearer auth", () => {
  it("builds the four URLs, with the model id URL-encoded", async () => {
    const { fetch, requests } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(
            request.url.includes("converse")
              ? converseFrames(CONVERSE_EVENTS)
              : invokeFrames(THINKING_TOOL_EVENTS),
          )
        : json(request.url.endsWith("/converse") ? CONVERSE_JSON : invokeMessageJson(THINKING_TOOL_EVENTS)),
    );
    for (const api of ["invoke", "converse"] as const) {
      const provider = bedrock({ region: "us-west-2", model: CLAUDE, api, apiKey: BEARER, fetch, ...quiet });
      await provider.complete(HISTORY);
      await collectStream(provider.stream(HISTORY));
    }
    const host =
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0";
    expect(requests.map((request) => request.url)).toEqual([
      `${host}/invoke`,
      `${host}/invoke-with-response-stream`,
      `${host}/converse`,
      `${host}/converse-stream`,
    ]);
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(request.headers.get("authorization")).toBe(`Bearer ${BEARER}`);
      expect(request.headers.get("content-type")).toBe("application/json");
    }
    expect(requests[0]!.headers.get("accept")).toBe("application/json");
    expect(requests[1]!.headers.get("x-amzn-bedrock-accept")).toBe("application/json");
  });

  it("inference-profile ARNs and a custom endpoint (VPC, local)", async () => {
    const arn =
      "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      model: arn,
      api: "converse",
      endpoint: "https://vpce-0abc.bedrock-runtime.us-east-1.vpce.amazonaws.com/proxy/",
      env: { AWS_BEARER_TOKEN_BEDROCK: BEARER },
      fetch,
      ...quiet,
    });
    await provider.complete(HISTORY);
    expect(requests[0]!.url).toBe(
      "https://vpce-0abc.bedrock-runtime.us-east-1.vpce.amazonaws.com/proxy/model/" +
        "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
    );
    expect(encodeModelId("a!b'c(d)e*f~g.h_i-j")).toBe("a%21b%27c%28d%29e%2Af~g.h_i-j");
  });

  it("apiKey wins over env; user headers never override the auth header", async () => {
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      env: { AWS_BEARER_TOKEN_BEDROCK: "other-key-from-env-000000" },
      headers: { Authorization: "Bearer spoofed", "x-trace": "1" },
      fetch,
      ...quiet,
    });
    await provider.complete(HISTORY);
    expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${BEARER}`);
    expect(requests[0]!.headers.get("x-trace")).toBe("1");
  });
});

describe("SigV4 through aws4fetch", () => {
  it("AWS's published get-vanilla vector, with a fixed clock", async () => {
    const signer = new AwsV4Signer({
      method: "GET",
      url: "https://example.amazonaws.com/",
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      service: "service",
      region: "us-east-1",
      datetime: "20150830T123600Z",
    });
    const signed = await signer.sign();
    expect(signed.headers.get("authorization")).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, " +
        "SignedHeaders=host;x-amz-date, " +
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    // The reference implementation used below agrees with the published vector too.
    const reference = await referenceSigV4({
      method: "GET",
      url: "https://example.amazonaws.com/",
      headers: { "x-amz-date": "20150830T123600Z" },
      body: "",
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: "us-east-1",
      service: "service",
      amzDate: "20150830T123600Z",
      signedHeaders: ["host", "x-amz-date"],
    });
    expect(reference.signature).toBe("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  });

  it("a bedrock POST with a fixed clock: double-encoded canonical URI, session token signed", async () => {
    const url =
      "https://bedrock-runtime.us-east-1.amazonaws.com/model/" +
      `${encodeModelId("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0")}/converse`;
    const body = JSON.stringify({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    const signer = new AwsV4Signer({
      method: "POST",
      url,
      headers: { "content-type": "application/json" },
      body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      sessionToken: SESSION_TOKEN,
      service: "bedrock",
      region: "us-east-1",
      datetime: "20250102T030405Z",
    });
    const canonical = await signer.canonicalString();
    expect(canonical.split("\n")[1]).toBe(
      "/model/arn%253Aaws%253Abedrock%253Aus-east-1%253A123456789012%253Ainference-profile%252Fus.anthropic.claude-sonnet-4-5-20250929-v1%253A0/converse",
    );
    const signed = await signer.sign();
    const authorization = signed.headers.get("authorization")!;
    const parts = parseAuthorization(authorization);
    expect(parts.signedHeaders).toEqual(["host", "x-amz-date", "x-amz-security-token"]);
    const reference = await referenceSigV4({
      method: "POST",
      url,
      headers: signed.headers,
      body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: "us-east-1",
      service: "bedrock",
      amzDate: "20250102T030405Z",
      signedHeaders: parts.signedHeaders,
    });
    expect(reference.canonicalRequest).toBe(canonical);
    expect(authorization).toBe(reference.authorization);
  });

  for (const api of ["invoke", "converse"] as const) {
    it(`bedrock(${api}) signs what it sends: the Authorization header recomputed independently matches`, async () => {
      const { fetch, requests } = fakeFetch((request) =>
        eventStream(
          request.url.includes("converse")
            ? converseFrames(CONVERSE_EVENTS)
            : invokeFrames(THINKING_TOOL_EVENTS),
        ),
      );
      const provider = bedrock({
        region: "ap-southeast-2",
        model: CLAUDE,
        api,
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
        headers: { "x-amzn-bedrock-trace": "ENABLED", "X-Custom": "  spaced   value " },
        fetch,
        ...quiet,
      });
      await collectStream(provider.stream(HISTORY, [{ name: "weather", parameters: { type: "object" } }]));
      const request = requests[0]!;
      expect(request.url).toContain("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/");
      const amzDate = request.headers.get("x-amz-date")!;
      expect(amzDate).toMatch(/^\d{8}T\d{6}Z$/);
      expect(request.headers.get("x-amz-security-token")).toBe(SESSION_TOKEN);
      const authorization = request.headers.get("authorization")!;
      const parts = parseAuthorization(authorization);
      expect(parts.credential).toBe(
        `${ACCESS_KEY}/${amzDate.slice(0, 8)}/ap-southeast-2/bedrock/aws4_request`,
      );
      expect(parts.signedHeaders).toEqual(
        expect.arrayContaining(["host", "x-amz-date", "x-amz-security-token", "x-custom"]),
      );
      const reference = await referenceSigV4({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body,
        accessKeyId: ACCESS_KEY,
        secretAccessKey: SECRET_KEY,
        region: "ap-southeast-2",
        service: "bedrock",
        amzDate,
        signedHeaders: parts.signedHeaders,
      });
      expect(reference.canonicalRequest.split("\n")[1]).toContain("v1%253A0");
      expect(authorization).toBe(reference.authorization);
    });
  }
});

describe("bedrock(): errors", () => {
  const provider = (
    respond: (captured: Captured) => Response | Promise<Response>,
    api: "invoke" | "converse" = "converse",
  ) =>
    bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api,
      credentials: {
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: SECRET_KEY,
        sessionToken: SESSION_TOKEN,
      },
      fetch: fakeFetch(respond).fetch,
      ...quiet,
    });

  it("HTTP errors: x-amzn-errortype decides the kind; request id and Retry-After kept", async () => {
    const throttled = (await failure(() =>
      provider(() =>
        json(
          { message: "Too many requests, please wait before trying again." },
          {
            status: 429,
            headers: {
              "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
              "x-amzn-requestid": "req-123",
              "retry-after": "2",
            },
          },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(throttled).toMatchObject({
      kind: "rate_limit",
      status: 429,
      code: "ThrottlingException",
      requestId: "req-123",
      retryAfterMs: 2000,
      retryable: true,
    });
    const tooLong = (await failure(() =>
      provider(() =>
        json(
          { message: "Input is too long for requested model." },
          { status: 400, headers: { "x-amzn-errortype": "ValidationException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(tooLong).toMatchObject({ kind: "context_length", code: "ValidationException", retryable: false });
    const unavailable = (await failure(() =>
      provider(() =>
        json(
          { message: "Bedrock is unable to process your request." },
          { status: 503, headers: { "x-amzn-errortype": "ServiceUnavailableException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(unavailable.kind).toBe("overloaded");
    const denied = (await failure(() =>
      provider(() =>
        json(
          { Message: "User is not authorized" },
          { status: 403, headers: { "x-amzn-errortype": "AccessDeniedException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(denied).toMatchObject({ kind: "auth", message: "bedrock 403: User is not authorized" });
    // No header: the status decides.
    const missing = (await failure(() =>
      provider(() => json({ message: "nope" }, { status: 404 })).complete(HISTORY),
    )) as ProviderError;
    expect(missing.kind).toBe("not_found");
  });

  it("the recorded ConverseStream 400 (invalid model id) is a bad_request before any stream", async () => {
    const fixture = await loadFixture("bedrock/pydantic-ai__test_bedrock_streaming_error.yaml");
    const recorded = fixture.interactions[0]!;
    const error = (await failure(() =>
      collectStream(
        provider(
          () => new Response(recorded.body.slice(), { status: recorded.status, headers: recorded.headers }),
        ).stream(HISTORY),
      ),
    )) as ProviderError;
    expect(error).toMatchObject({
      kind: "bad_request",
      status: 400,
      message: "bedrock 400: The provided model identifier is invalid.",
      partialOutput: false,
    });
  });

  it("credentials never appear in errors, even when the body echoes them", async () => {
    const echo = `The security token included in the request is invalid: ${SESSION_TOKEN} ${SECRET_KEY} AKIAIOSFODNN7EXAMPLE`;
    const error = (await failure(() =>
      provider(() =>
        json(
          { message: echo },
          { status: 403, headers: { "x-amzn-errortype": "UnrecognizedClientException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(error.kind).toBe("auth");
    const text = JSON.stringify(error.toJSON()) + error.message + String(error.stack);
    for (const secret of [SESSION_TOKEN, SECRET_KEY, "AKIAIOSFODNN7EXAMPLE"])
      expect(text).not.toContain(secret);
    // …and from mid-stream exception frames too.
    const midStream = (await failure(() =>
      collectStream(provider(() => eventStream(exceptionFrame("validationException", echo))).stream(HISTORY)),
    )) as ProviderError;
    const streamed = JSON.stringify(midStream.toJSON()) + midStream.message;
    for (const secret of [SESSION_TOKEN, SECRET_KEY, "AKIAIOSFODNN7EXAMPLE"])
      expect(streamed).not.toContain(secret);
    const network = (await failure(() =>
      provider(() => {
        throw new TypeError(`fetch failed for ${SECRET_KEY}`);
      }).complete(HISTORY),
    )) as ProviderError;
    expect(network.kind).toBe("network");
    expect(network.message).not.toContain(SECRET_KEY);
  });

  it("a mid-stream exception frame (converse): output first, then a ProviderError with partialOutput", async () => {
    const body = concat([
      converseEventFrame("messageStart", { role: "assistant" }),
      converseEventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Partial" } }),
      exceptionFrame("throttlingException", "Too many tokens, please wait before trying again."),
    ]);
    const seen: StreamEvent[] = [];
    const error = (await failure(async () => {
      for await (const event of provider(() => eventStream(body, [5, 11])).stream(HISTORY)) seen.push(event);
    })) as ProviderError;
    expect(seen).toEqual([{ type: "text-delta", text: "Partial" }]);
    expect(error).toMatchObject({
      kind: "rate_limit",
      code: "throttlingException",
      partialOutput: true,
      retryable: true,
      provider: "bedrock",
    });
    expect(error.message).toContain("Too many tokens");
  });

  it("a mid-stream exception frame (invoke): modelStreamErrorException is a server error with partialOutput", async () => {
    const body = concat([
      invokeFrames(THINKING_TOOL_EVENTS.slice(0, 4)),
      encodeFrame(
        {
          ":exception-type": "modelStreamErrorException",
          ":content-type": "application/json",
          ":message-type": "exception",
        },
        JSON.stringify({
          message: "Model stream error",
          originalStatusCode: 500,
          originalMessage: "overloaded",
        }),
      ),
    ]);
    const error = (await failure(() =>
      collectStream(provider(() => eventStream(body), "invoke").stream(HISTORY)),
    )) as ProviderError;
    expect(error).toMatchObject({ kind: "server", code: "modelStreamErrorException", partialOutput: true });
    expect(error.message).toContain("Model stream error (overloaded)");
  });

  it("a stream cut before messageStop / message_stop is truncated; a corrupted frame is invalid_response", async () => {
    const converseCut = converseFrames(CONVERSE_EVENTS.slice(0, 6));
    expect(
      await failure(() => collectStream(provider(() => eventStream(converseCut)).stream(HISTORY))),
    ).toMatchObject({
      kind: "truncated",
      partialOutput: true,
    });
    const invokeCut = invokeFrames(THINKING_TOOL_EVENTS.slice(0, 10));
    expect(
      await failure(() => collectStream(provider(() => eventStream(invokeCut), "invoke").stream(HISTORY))),
    ).toMatchObject({ kind: "truncated", partialOutput: true });
    // Cut inside a frame.
    const whole = converseFrames(CONVERSE_EVENTS);
    expect(
      await failure(() =>
        collectStream(provider(() => eventStream(whole.slice(0, whole.length - 3))).stream(HISTORY)),
      ),
    ).toMatchObject({ kind: "truncated" });
    const corrupted = whole.slice();
    corrupted[40] = corrupted[40]! ^ 0xff;
    expect(
      await failure(() => collectStream(provider(() => eventStream(corrupted)).stream(HISTORY))),
    ).toMatchObject({
      kind: "invalid_response",
    });
  });

  it("a 200 JSON body where the event stream belongs is invalid_response, with the body kept", async () => {
    const error = (await failure(() =>
      collectStream(provider(() => json({ message: "surprise" })).stream(HISTORY)),
    )) as ProviderError;
    expect(error).toMatchObject({ kind: "invalid_response", upstreamBody: '{"message":"surprise"}' });
  });

  it("ends after metadata without reading the rest of the body (converse)", async () => {
    let cancelled = false;
    const bytes = converseFrames(CONVERSE_EVENTS);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
      },
      cancel() {
        cancelled = true;
      },
    });
    const { response } = await collect(
      provider(
        () => new Response(body, { headers: { "content-type": "application/vnd.amazon.eventstream" } }),
      ).stream(HISTORY),
    );
    expect(response.stopReason).toBe("tool-calls");
    expect(cancelled).toBe(true);
  });
});

describe("bedrock(api: invoke): the Anthropic Messages body, and the same output as the first-party API", () => {
  it("sends anthropic_version and no model, no stream field; betas as anthropic_beta; metadata left out", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      betas: ["interleaved-thinking-2025-05-14"],
      fetch,
      ...quiet,
    });
    const { response } = await collect(
      provider.stream(HISTORY, [{ name: "weather", parameters: { type: "object" } }], {
        thinking: { budgetTokens: 2000 },
        maxTokens: 1000,
        metadata: { user_id: "u-1" },
      }),
    );
    const body = requests[0]!.json;
    expect(body.anthropic_version).toBe("bedrock-2023-05-31");
    expect(body).not.toHaveProperty("model");
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("metadata");
    expect(body.anthropic_beta).toEqual(["interleaved-thinking-2025-05-14"]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2000 });
    expect(body.max_tokens).toBe(2001);
    expect(response.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("metadata.user_id"),
        expect.stringContaining("max_tokens 1000"),
      ]),
    );
  });

  it("a stream with thinking (signed), redacted_thinking and tool_use: the Response of the first-party stream", async () => {
    const sse = THINKING_TOOL_EVENTS.map(
      (event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`,
    ).join("");
    const firstParty = anthropic({
      apiKey: "sk-ant-test-0000000000000000",
      model: "claude-sonnet-4-5",
      fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
    });
    const viaSse = await collect(firstParty.stream(HISTORY));
    const { fetch } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS), [1, 7, 2, 19, 3]));
    const viaBedrock = await collect(
      bedrock({ region: "us-east-1", model: CLAUDE, api: "invoke", apiKey: BEARER, fetch, ...quiet }).stream(
        HISTORY,
      ),
    );
    expect(viaBedrock.response).toEqual(provenance(viaSse.response, CLAUDE));
    const blocks = viaBedrock.response.message.native!.blocks as Json[];
    expect(blocks).toEqual([
      { type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE },
      { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: { city: "Paris" } },
    ]);
    expect(viaBedrock.response.message.toolCalls).toEqual([
      { id: "toolu_bdrk_01", name: "weather", arguments: { city: "Paris" } },
    ]);
    expect(viaBedrock.response.usage).toEqual({
      inputTokens: 50,
      outputTokens: 42,
      cachedInputTokens: 10,
      cacheWriteTokens: 0,
    });
  });

  it("every recorded first-party Anthropic message, wrapped in Bedrock chunk frames, gives the same outcome", async () => {
    const messages = await recordedAnthropicMessages();
    expect(messages.length).toBeGreaterThanOrEqual(25);
    let thinkingAndTools = 0;
    for (const { name, events } of messages) {
      const sse = events
        .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
        .join("");
      const firstParty = anthropic({
        apiKey: "sk-ant-test-0000000000000000",
        model: "claude-sonnet-4-5",
        fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
      });
      const { fetch } = fakeFetch(() => eventStream(invokeFrames(events), [3, 1, 11]));
      const onBedrock = bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "invoke",
        apiKey: BEARER,
        fetch,
        ...quiet,
      });
      const expected = await outcome(firstParty.stream(HISTORY));
      const actual = await outcome(onBedrock.stream(HISTORY));
      if ("response" in expected) {
        expect(actual, name).toEqual({ response: provenance(expected.response, CLAUDE) });
        const types = (expected.response.message.native!.blocks as Json[]).map((block) => block.type);
        if (types.includes("thinking") && types.some((type) => String(type).includes("tool_use")))
          thinkingAndTools++;
      } else {
        expect(actual, name).toEqual(expected);
      }
    }
    // Recorded thinking followed by (server) tool use, e.g. web search and MCP.
    expect(thinkingAndTools).toBeGreaterThanOrEqual(2);
  });

  it("complete() returns what stream() returns for the same output", async () => {
    const { fetch } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(invokeFrames(THINKING_TOOL_EVENTS))
        : json(invokeMessageJson(THINKING_TOOL_EVENTS)),
    );
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    expect(await provider.complete(HISTORY)).toEqual((await collect(provider.stream(HISTORY))).response);
  });

  it("replays its own thinking to the same Bedrock model; first-party or other-model thinking is dropped", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const first = await collect(provider.stream(HISTORY));
    const next: MessageInput[] = [
      ...HISTORY,
      first.response.message,
      { role: "tool", toolResults: [{ callId: "toolu_bdrk_01", content: "18°C" }] },
    ];
    await collect(provider.stream(next));
    const assistant = (requests[1]!.json.messages as Json[])[1]!;
    expect(assistant.content).toEqual(first.response.message.native!.blocks);
    const foreign = {
      ...first.response.message,
      native: { ...first.response.message.native!, origin: "anthropic" },
    };
    const { response } = await collect(provider.stream([...HISTORY, foreign, next[2]!]));
    const rebuilt = (requests[2]!.json.messages as Json[])[1]!;
    expect((rebuilt.content as Json[]).map((block) => block.type)).toEqual(["text", "tool_use"]);
    expect(response.warnings?.join(" ")).toContain("2 reasoning block(s) dropped");
  });
});

describe("bedrock(api: converse)", () => {
  it("stream() equals complete() for the same output, with reasoning, text and a tool call", async () => {
    const { fetch } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(converseFrames(CONVERSE_EVENTS), [2, 9, 1])
        : json(CONVERSE_JSON),
    );
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const streamed = await collect(provider.stream(HISTORY));
    const completed = await provider.complete(HISTORY);
    expect(streamed.response).toEqual(completed);
    expect(completed).toMatchObject({
      provider: "bedrock",
      model: CLAUDE,
      stopReason: "tool-calls",
      rawStopReason: "tool_use",
      reasoning: "Weather lookup.",
      usage: { inputTokens: 30, outputTokens: 20, cachedInputTokens: 10, cacheWriteTokens: 0 },
      message: {
        content: "Checking Paris.",
        toolCalls: [{ id: "tooluse_abc123", name: "weather", arguments: { city: "Paris" } }],
        native: { protocol: "bedrock-converse", origin: "bedrock", model: CLAUDE },
      },
    });
    const content = streamed.events
      .filter((event) => event.type !== "usage" && event.type !== "done")
      .map((event) => ({ ...event }));
    coalesceDeltas(content);
    expect(content).toEqual([
      { type: "reasoning-delta", text: "Weather lookup." },
      { type: "text-delta", text: "Checking Paris." },
      { type: "tool-call-start", index: 0, id: "tooluse_abc123", name: "weather" },
      { type: "tool-call-delta", index: 0, id: "tooluse_abc123", argumentsDelta: '{"city":"Paris"}' },
      {
        type: "tool-call-end",
        index: 0,
        toolCall: { id: "tooluse_abc123", name: "weather", arguments: { city: "Paris" } },
      },
    ]);
    expect(streamed.events.filter((event) => event.type === "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 30, outputTokens: 20, cachedInputTokens: 10, cacheWriteTokens: 0 },
      },
    ]);
  });

  it("sends the Converse body: toolConfig, inferenceConfig, Claude thinking, cache points; replays reasoning", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(converseFrames(CONVERSE_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const tools = [
      {
        name: "weather",
        description: "Weather by city",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    ];
    const history: MessageInput[] = [{ role: "system", content: "Be brief." }, ...HISTORY];
    const first = await collect(
      provider.stream(history, tools, { thinking: { budgetTokens: 500 }, maxTokens: 800, temperature: 0.3 }),
    );
    const body = requests[0]!.json;
    expect(body).toEqual({
      messages: [
        {
          role: "user",
          content: [{ text: "What is the weather in Paris?" }, { cachePoint: { type: "default" } }],
        },
      ],
      system: [{ text: "Be brief." }, { cachePoint: { type: "default" } }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "weather",
              description: "Weather by city",
              inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } },
            },
          },
          { cachePoint: { type: "default" } },
        ],
      },
      inferenceConfig: { maxTokens: 1025 },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
    });
    expect(first.response.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("below the API minimum"),
        expect.stringContaining("max_tokens 800"),
        expect.stringContaining("temperature 0.3"),
      ]),
    );
    // Next turn: the reasoning block goes back verbatim, the tool result is paired.
    await collect(
      provider.stream(
        [
          ...history,
          first.response.message,
          { role: "tool", toolResults: [{ callId: "tooluse_abc123", content: "18°C" }] },
        ],
        tools,
      ),
    );
    const messages = requests[1]!.json.messages as Json[];
    expect(messages[1]).toEqual({ role: "assistant", content: first.response.message.native!.blocks });
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { toolResult: { toolUseId: "tooluse_abc123", content: [{ text: "18°C" }] } },
        { cachePoint: { type: "default" } },
      ],
    });
  });

  it("non-Claude models: no cache points by default, no status field, thinking reported", async () => {
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      region: "us-east-1",
      model: "meta.llama3-70b-instruct-v1:0",
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const response = await provider.complete(
      [
        ...HISTORY,
        { role: "assistant", toolCalls: [{ id: "t1", name: "weather", arguments: { city: "Paris" } }] },
        { role: "tool", toolResults: [{ callId: "t1", content: "boom", isError: true }] },
      ],
      [{ name: "weather" }],
      { thinking: "adaptive", temperature: 0.2 },
    );
    const body = requests[0]!.json;
    expect(JSON.stringify(body)).not.toContain("cachePoint");
    expect((body.messages as Json[])[2]).toEqual({
      role: "user",
      content: [{ toolResult: { toolUseId: "t1", content: [{ text: "Error: boom" }] } }],
    });
    expect(body.inferenceConfig).toEqual({ temperature: 0.2 });
    expect(body).not.toHaveProperty("additionalModelRequestFields");
    expect(response.warnings?.join(" ")).toContain("thinking is only mapped for Claude");
  });
});

// ---------------------------------------------------------------------------------------------------

/** What a first-party response looks like served by Bedrock: only provider and native provenance differ. */
function provenance(response: ModelResponse, model: string): ModelResponse {
  return {
    ...response,
    provider: "bedrock",
    message: { ...response.message, native: { ...response.message.native!, origin: "bedrock", model } },
  };
}

async function outcome(
  events: AsyncIterable<StreamEvent>,
): Promise<{ response: ModelResponse } | { error: Json }> {
  try {
    return { response: (await collect(events)).response };
  } catch (error) {
    const data = ProviderError.is(error) ? error.toJSON() : { message: String(error) };
    return { error: { kind: (data as Json).kind, partialOutput: (data as Json).partialOutput } };
  }
}

/** Every message of every recorded Anthropic SSE body (the `data:` JSON events, split at `message_start`). */
async function recordedAnthropicMessages(): Promise<{ name: string; events: Json[] }[]> {
  const decoder = new TextDecoder();
  const out: { name: string; events: Json[] }[] = [];
  for (const info of listFixtures("anthropic")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      if (interaction.bodyKind !== "sse") continue;
      const events = decoder
        .decode(interaction.body)
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .filter((data) => data !== "[DONE]")
        .map((data) => JSON.parse(data) as Json);
      let current: Json[] | undefined;
      for (const event of events) {
        if (event.type === "message_start" || current === undefined) {
          current = [];
          out.push({ name: `${info.path}#${interaction.index}/${out.length}`, events: current });
        }
        current.push(event);
      }
    }
  }
  return out;
}
