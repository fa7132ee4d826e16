/**
 * Shared runtime cases for the Bedrock adapter: they run in Node, workerd, Deno and Bun (see ./cases.ts),
 * against an in-process fake Bedrock endpoint — an injected `fetch` that reads a real `Request` and
 * answers with binary event-stream frames split at odd boundaries, one macrotask apart. SigV4 is checked
 * against a reference computed with the runtime's own Web Crypto.
 */
import {
  collectStream,
  type MessageInput,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";
import { bedrock } from "../../src/providers/bedrock.ts";
import {
  concat,
  converseEventFrame,
  converseFrames,
  exceptionFrame,
  invokeFrames,
  oddChunkBody,
} from "../helpers/bedrock-frames.ts";
import { parseAuthorization, referenceSigV4 } from "../helpers/sigv4-reference.ts";
import { equal, ok, rejects, throws } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

type Json = Record<string, unknown>;

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const HISTORY: MessageInput[] = [{ role: "user", content: "Weather in Zürich?" }];
const TOOLS = [{ name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];
const ACCESS_KEY = "AKIDEXAMPLE";
const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SESSION_TOKEN = "runtime-session-token-EXAMPLE/+=";

interface Seen {
  url: string;
  method: string;
  headers: Headers;
  text: string;
  body: Json;
}

/** An in-process Bedrock: a fetch handler that reads a real `Request` and answers from `answer`. */
function fakeBedrock(answer: (request: Seen) => Uint8Array | Response) {
  const requests: Seen[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = await request.text();
    const seen: Seen = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      text,
      body: JSON.parse(text) as Json,
    };
    requests.push(seen);
    const result = answer(seen);
    if (result instanceof Response) return result;
    return new Response(oddChunkBody(result, [1, 5, 3, 17, 2, 41, 7]), {
      headers: { "content-type": "application/vnd.amazon.eventstream" },
    });
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

const SIGNATURE = "EqQBCkYIBxgCKkBruntimeSignature+/==";

/** Anthropic Messages events with signed thinking, redacted thinking, text and a tool call. */
const INVOKE_EVENTS: Json[] = [
  {
    type: "message_start",
    message: {
      id: "msg_bdrk_rt",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 40, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Zürich → " } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "weather tool ☀️" } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "redacted_thinking", data: "UmVkYWN0ZWQ=" },
  },
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_rt", name: "weather", input: {} },
  },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":"Z' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: 'ürich"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 33 } },
  { type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 40, outputTokenCount: 33 } },
];

const CONVERSE_EVENTS: Json[] = [
  { messageStart: { role: "assistant" } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "Zürich: " } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "call weather." } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: SIGNATURE } } } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Checking " } } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Zürich. 🌦" } } },
  { contentBlockStop: { contentBlockIndex: 1 } },
  {
    contentBlockStart: {
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: "tooluse_rt", name: "weather" } },
    },
  },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } } },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '"Zürich"}' } } } },
  { contentBlockStop: { contentBlockIndex: 2 } },
  { messageStop: { stopReason: "tool_use" } },
  { metadata: { usage: { inputTokens: 25, outputTokens: 15, totalTokens: 48, cacheReadInputTokens: 8 } } },
];

export const bedrockCases: RuntimeCase[] = [
  {
    name: "bedrock(invoke) streams signed thinking + redacted thinking + tool_use from binary frames split at odd boundaries",
    async run() {
      const server = fakeBedrock(() => invokeFrames(INVOKE_EVENTS));
      const provider = bedrock({
        region: "eu-central-1",
        model: CLAUDE,
        api: "invoke",
        env: { AWS_BEARER_TOKEN_BEDROCK: "runtime-bearer-key-1234" },
        fetch: server.fetch,
        logger: false,
      });
      const seen: StreamEvent[] = [];
      const response = await collectStream(
        provider.stream(HISTORY, TOOLS, { thinking: { budgetTokens: 2048 } }),
        {
          onEvent: (event) => seen.push(event),
        },
      );
      const request = server.requests[0]!;
      equal(
        request.url,
        "https://bedrock-runtime.eu-central-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
      );
      equal(request.method, "POST");
      equal(request.headers.get("authorization"), "Bearer runtime-bearer-key-1234");
      equal(request.body.anthropic_version, "bedrock-2023-05-31");
      ok(!("model" in request.body) && !("stream" in request.body), "no model or stream field in the body");
      equal(request.body.thinking, { type: "enabled", budget_tokens: 2048 });
      equal(
        seen.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : [])).join(""),
        "Zürich → weather tool ☀️",
      );
      equal(
        seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.argumentsDelta] : [])).join(""),
        '{"city":"Zürich"}',
      );
      equal(response.message.toolCalls, [{ id: "toolu_rt", name: "weather", arguments: { city: "Zürich" } }]);
      equal(response.message.native, {
        protocol: "anthropic-messages",
        origin: "bedrock",
        model: CLAUDE,
        blocks: [
          { type: "thinking", thinking: "Zürich → weather tool ☀️", signature: SIGNATURE },
          { type: "redacted_thinking", data: "UmVkYWN0ZWQ=" },
          { type: "tool_use", id: "toolu_rt", name: "weather", input: { city: "Zürich" } },
        ],
      });
      equal(response.usage, { inputTokens: 40, outputTokens: 33 });
      equal(response.stopReason, "tool-calls");
      equal(response.provider, "bedrock");
    },
  },
  {
    name: "bedrock(converse) streams reasoning + text + toolUse, SigV4-signed (checked against a Web Crypto reference)",
    async run() {
      const server = fakeBedrock(() => converseFrames(CONVERSE_EVENTS));
      const arn =
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0";
      const provider = bedrock({
        region: "us-east-1",
        model: arn,
        api: "converse",
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
        fetch: server.fetch,
        logger: false,
      });
      const seen: StreamEvent[] = [];
      const response = await collectStream(provider.stream(HISTORY, TOOLS), {
        onEvent: (event) => seen.push(event),
      });
      const request = server.requests[0]!;
      equal(
        request.url,
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
      );
      const authorization = request.headers.get("authorization") ?? "";
      const parts = parseAuthorization(authorization);
      const amzDate = request.headers.get("x-amz-date") ?? "";
      equal(request.headers.get("x-amz-security-token"), SESSION_TOKEN);
      const reference = await referenceSigV4({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.text,
        accessKeyId: ACCESS_KEY,
        secretAccessKey: SECRET_KEY,
        region: "us-east-1",
        service: "bedrock",
        amzDate,
        signedHeaders: parts.signedHeaders,
      });
      equal(authorization, reference.authorization);
      ok(reference.canonicalRequest.includes("%252Fus.anthropic"), "canonical URI double-encodes the ARN");
      equal(seen.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join(""), "Checking Zürich. 🌦");
      equal(response.message.content, "Checking Zürich. 🌦");
      equal(response.reasoning, "Zürich: call weather.");
      equal(response.message.toolCalls, [
        { id: "tooluse_rt", name: "weather", arguments: { city: "Zürich" } },
      ]);
      equal(response.message.native?.blocks, [
        { reasoningContent: { reasoningText: { text: "Zürich: call weather.", signature: SIGNATURE } } },
        { text: "Checking Zürich. 🌦" },
        { toolUse: { toolUseId: "tooluse_rt", name: "weather", input: { city: "Zürich" } } },
      ]);
      equal(response.usage, { inputTokens: 25, outputTokens: 15, cachedInputTokens: 8 });
      // The next turn replays the signed reasoning verbatim.
      const next: MessageInput[] = [
        ...HISTORY,
        response.message,
        { role: "tool", toolResults: [{ callId: "tooluse_rt", content: "12°C" }] },
      ];
      await collectStream(provider.stream(next, TOOLS));
      const replayed = (server.requests[1]!.body.messages as Json[])[1] as { content: unknown[] };
      equal(replayed.content, response.message.native?.blocks);
    },
  },
  {
    name: "bedrock() in bearer mode without a key fails before any request, naming apiKey and AWS_BEARER_TOKEN_BEDROCK",
    async run() {
      const server = fakeBedrock(() => new Uint8Array(0));
      const error = throws(
        () =>
          bedrock({
            region: "us-east-1",
            model: CLAUDE,
            api: "converse",
            auth: "bearer",
            env: {},
            fetch: server.fetch,
            logger: false,
          }),
        ValidationError,
      ) as Error;
      ok(
        error.message.includes("apiKey") && error.message.includes("AWS_BEARER_TOKEN_BEDROCK"),
        error.message,
      );
      equal(server.requests.length, 0);
    },
  },
  {
    name: "bedrock(converse): a mid-stream throttlingException frame is a ProviderError after the partial output",
    async run() {
      const server = fakeBedrock(() =>
        concat([
          converseEventFrame("messageStart", { role: "assistant" }),
          converseEventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Partial" } }),
          exceptionFrame("throttlingException", "Too many tokens, please wait before trying again."),
        ]),
      );
      const provider = bedrock({
        region: "us-east-1",
        model: "amazon.nova-pro-v1:0",
        api: "converse",
        apiKey: "runtime-bearer-key-1234",
        fetch: server.fetch,
        logger: false,
      });
      const seen: StreamEvent[] = [];
      const error = await rejects(
        collectStream(provider.stream(HISTORY), { onEvent: (event) => seen.push(event) }),
        ProviderError,
      );
      equal(seen, [{ type: "text-delta", text: "Partial" }]);
      ok(ProviderError.is(error));
      equal(
        {
          kind: error.kind,
          code: error.code,
          partialOutput: error.partialOutput,
          retryable: error.retryable,
        },
        { kind: "rate_limit", code: "throttlingException", partialOutput: true, retryable: true },
      );
    },
  },
];
