/**
 * Shared runtime cases for Vertex AI: they run in Node, workerd, Deno and Bun (see ./cases.ts). The
 * service-account flow runs against a fake token endpoint on the fetch layer, with a key pair made by the
 * runtime's own Web Crypto: the assertion's RS256 signature is verified with the public key, its claims
 * checked, and so are the cache (one exchange for many calls, a new one after expiry on an injected
 * clock), the shared in-flight exchange, and a refused exchange (`auth`, no key material in any field).
 * Claude on Vertex: the rawPredict / streamRawPredict URL and body, an Anthropic stream split at odd
 * boundaries assembled, and signed thinking replayed byte for byte to Vertex and not to the first-party API.
 */
import {
  anthropic,
  collectStream,
  type MessageInput,
  type Response as ModelResponse,
  ProviderError,
  ValidationError,
  vertex,
} from "../../src/index.ts";
import { googleServiceAccountTokens } from "../../src/protocols/index.ts";
import { oddChunkBody } from "../helpers/bedrock-frames.ts";
import {
  CLIENT_EMAIL,
  checkJwt,
  errorTexts,
  fakeClock,
  fakeGoogle,
  fakeServiceAccount,
  KEY_ID,
  leakedPiece,
  TOKEN_URI,
} from "../helpers/google-service-account.ts";
import { equal, ok, rejects, throws } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

type Json = Record<string, unknown>;

const CLAUDE = "claude-sonnet-4-5@20250929";
const PROJECT = "example-project";
const HISTORY: MessageInput[] = [{ role: "user", content: "Weather in Zürich?" }];
const TOOLS = [{ name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];
const SIGNATURE = "EqQBCkYIBxgCKkB/vertex+Signature==";
const encoder = new TextEncoder();

/** An Anthropic stream with signed thinking, redacted thinking and a tool call (as Vertex sends it: SSE). */
const EVENTS: Json[] = [
  {
    type: "message_start",
    message: {
      id: "msg_vrtx_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
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
    content_block: { type: "tool_use", id: "toolu_vrtx_01", name: "weather", input: {} },
  },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":"Z' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: 'ürich"}' } },
  { type: "content_block_stop", index: 2 },
  {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 33 },
  },
  { type: "message_stop" },
];

function sse(events: readonly Json[]): Uint8Array {
  return encoder.encode(
    events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""),
  );
}

function sseResponse(events: readonly Json[]): Response {
  return new Response(oddChunkBody(sse(events), [1, 5, 3, 17, 2, 41, 7]), {
    headers: { "content-type": "text/event-stream" },
  });
}

/** The whole Messages answer the events above stream. */
const MESSAGE = {
  id: "msg_vrtx_02",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "Sunny." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 3 },
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

export const vertexCases: RuntimeCase[] = [
  {
    name: "vertex service account: the RS256 assertion verifies with the public key; header, claims and form are Google's",
    async run() {
      const { account, publicKey } = await fakeServiceAccount();
      const clock = fakeClock();
      const google = fakeGoogle({ token: () => ({ token: "ya29.first-token-0123456789", expiresIn: 3599 }) });
      const tokens = googleServiceAccountTokens(JSON.stringify(account), {
        fetch: google.fetch,
        now: clock.now,
      });
      equal(await tokens.token(), "ya29.first-token-0123456789");
      equal(google.exchanges.length, 1);
      const exchange = google.exchanges[0]!;
      equal(exchange.method, "POST");
      equal(exchange.url, TOKEN_URI);
      equal(exchange.headers.get("content-type"), "application/x-www-form-urlencoded");
      equal(exchange.form.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
      equal([...exchange.form.keys()].sort(), ["assertion", "grant_type"]);
      const jwt = await checkJwt(exchange.assertion, publicKey);
      ok(jwt.verified, "the signature verifies with the key pair's public key");
      equal(jwt.signatureBytes, 256);
      equal(jwt.header, { alg: "RS256", typ: "JWT", kid: KEY_ID });
      const iat = Math.floor(clock.now() / 1000);
      equal(jwt.claims, {
        iss: CLIENT_EMAIL,
        scope: "https://www.googleapis.com/auth/cloud-platform",
        aud: TOKEN_URI,
        iat,
        exp: iat + 3600,
      });
      // A tampered assertion does not verify: the check above is a real one.
      const [header, claims, signature] = exchange.assertion.split(".") as [string, string, string];
      const forged = `${header}.${claims.slice(0, -2)}${claims.endsWith("A") ? "B" : "A"}${claims.slice(-1)}.${signature}`;
      ok(!(await checkJwt(forged, publicKey).catch(() => ({ verified: false }))).verified);
    },
  },
  {
    name: "vertex service account: one exchange for many calls, a new one only once the token nears expiry (injected clock)",
    async run() {
      const { account } = await fakeServiceAccount();
      const clock = fakeClock();
      const google = fakeGoogle({
        token: (_exchange, count) => ({ token: `ya29.token-${count}-abcdefghij`, expiresIn: 3600 }),
      });
      const tokens = googleServiceAccountTokens(account, { fetch: google.fetch, now: clock.now });
      for (let call = 0; call < 5; call++) equal(await tokens.token(), "ya29.token-1-abcdefghij");
      equal(google.exchanges.length, 1);
      // Refreshed five minutes before expiry: one ms before that, still cached.
      clock.advance(3_300_000 - 1);
      equal(await tokens.token(), "ya29.token-1-abcdefghij");
      equal(google.exchanges.length, 1);
      clock.advance(1);
      equal(await tokens.token(), "ya29.token-2-abcdefghij");
      equal(google.exchanges.length, 2);
      // The new assertion is issued at the new time.
      const claims = JSON.parse(
        atob(google.exchanges[1]!.assertion.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")),
      );
      equal(claims.iat, Math.floor(clock.now() / 1000));
      equal(await tokens.token(), "ya29.token-2-abcdefghij");
      equal(google.exchanges.length, 2);
    },
  },
  {
    name: "vertex service account: concurrent calls share the one exchange in flight",
    async run() {
      const { account } = await fakeServiceAccount();
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const google = fakeGoogle({
        token: async () => {
          await gate;
          return { token: "ya29.shared-token-0123456789" };
        },
        api: () => Response.json(MESSAGE),
      });
      const provider = vertex({
        project: PROJECT,
        location: "global",
        model: CLAUDE,
        credentials: account,
        fetch: google.fetch,
      });
      const calls = Array.from({ length: 6 }, () => provider.complete(HISTORY));
      for (let wait = 0; wait < 20 && google.exchanges.length === 0; wait++) await tick();
      await tick();
      equal(google.exchanges.length, 1, "one exchange under way");
      equal(google.calls.length, 0, "no call goes out before the token");
      release();
      const answers = await Promise.all(calls);
      equal(
        answers.map((answer) => answer.message.content),
        Array(6).fill("Sunny."),
      );
      equal(google.exchanges.length, 1);
      equal(google.calls.length, 6);
      for (const call of google.calls)
        equal(call.headers.get("authorization"), "Bearer ya29.shared-token-0123456789");
    },
  },
  {
    name: "vertex service account: a refused exchange is auth, not cached, and no piece of the key, assertion or token is in any field",
    async run() {
      const { account, keyLines } = await fakeServiceAccount();
      const google = fakeGoogle({
        token: (exchange, count) =>
          count === 1
            ? new Response(
                // A server echoing everything it got, in every encoding: the assertion, the form, the key.
                JSON.stringify({
                  error: "invalid_grant",
                  error_description: `Invalid JWT Signature. assertion=${exchange.assertion} form=${exchange.text} key=${account.private_key} pct=${encodeURIComponent(account.private_key)}`,
                }),
                { status: 400, headers: { "content-type": "application/json" } },
              )
            : { token: "ya29.second-try-0123456789" },
        api: () => Response.json(MESSAGE),
      });
      const provider = vertex({
        project: PROJECT,
        location: "us-east5",
        model: CLAUDE,
        credentials: account,
        fetch: google.fetch,
      });
      const error = (await rejects(provider.complete(HISTORY), ProviderError)) as ProviderError;
      equal(error.kind, "auth");
      equal(error.retryable, false);
      equal(error.code, "invalid_grant");
      ok(/token exchange/.test(error.message) && /invalid_grant/.test(error.message), error.message);
      equal(google.calls.length, 0, "no Vertex call without a token");
      ok(
        error.upstreamBody?.includes("Invalid JWT Signature") && error.upstreamBody.includes("[redacted]"),
        "the echo is kept, redacted",
      );
      const assertion = google.exchanges[0]!.assertion;
      const leaked = leakedPiece(errorTexts(error), [...keyLines, assertion.split(".")[2]!, assertion]);
      equal(leaked, undefined, "no key material in the error");
      // Not cached: the next call exchanges again, and goes through.
      equal((await provider.complete(HISTORY)).message.content, "Sunny.");
      equal(google.exchanges.length, 2);
      // A key file with no usable key fails at construction, naming the field and not the value.
      const bad = {
        ...account,
        private_key: "-----BEGIN PRIVATE KEY-----\n!!not base64!!\n-----END PRIVATE KEY-----",
      };
      throws(
        () => vertex({ project: PROJECT, location: "global", model: CLAUDE, credentials: bad }),
        (e: ValidationError) =>
          ValidationError.is(e) &&
          e.issues[0]!.path === "credentials.private_key" &&
          !e.message.includes("not base64!!"),
      );
    },
  },
  {
    name: "vertex Claude: streamRawPredict URL, body without model and with anthropic_version, an Anthropic SSE stream split at odd boundaries assembled",
    async run() {
      const { account } = await fakeServiceAccount();
      const google = fakeGoogle({ api: () => sseResponse(EVENTS) });
      const provider = vertex({
        project: PROJECT,
        location: "us-east5",
        model: CLAUDE,
        credentials: account,
        fetch: google.fetch,
        betas: ["context-1m-2025-08-07"],
      });
      equal(provider.protocol, "anthropic-messages");
      const response = await collectStream(
        provider.stream(HISTORY, TOOLS, { maxTokens: 4096, thinking: { budgetTokens: 2048 } }),
      );
      const call = google.calls[0]!;
      equal(
        call.url,
        `https://us-east5-aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${CLAUDE}:streamRawPredict`,
      );
      const body = JSON.parse(call.text) as Json;
      equal(Object.keys(body)[0], "anthropic_version");
      equal(body.anthropic_version, "vertex-2023-10-16");
      ok(!("model" in body), "no model in the body");
      equal(body.stream, true);
      equal(body.thinking, { type: "enabled", budget_tokens: 2048 });
      equal(call.headers.get("anthropic-beta"), "context-1m-2025-08-07");
      ok(call.headers.get("authorization")?.startsWith("Bearer ya29."));
      equal(call.headers.get("x-api-key"), null);
      equal(call.headers.get("anthropic-version"), null);
      equal(response.provider, "vertex");
      equal(response.model, "claude-sonnet-4-5-20250929", "the model the answer names");
      equal(response.stopReason, "tool-calls");
      equal(response.message.toolCalls, [
        { id: "toolu_vrtx_01", name: "weather", arguments: { city: "Zürich" } },
      ]);
      equal(response.usage.inputTokens, 40);
      equal(response.usage.outputTokens, 33);
      const native = response.message.native!;
      equal([native.protocol, native.origin, native.model], ["anthropic-messages", "vertex", CLAUDE]);
      equal(
        (native.blocks as Json[]).map((block) => block.type),
        ["thinking", "redacted_thinking", "tool_use"],
      );
      equal((native.blocks as Json[])[0]!.signature, SIGNATURE);
    },
  },
  {
    name: "vertex Claude: signed thinking replays byte for byte to the same Vertex model, and not to the first-party API",
    async run() {
      const { account } = await fakeServiceAccount();
      const google = fakeGoogle({
        api: (request) =>
          request.url.endsWith(":streamRawPredict") ? sseResponse(EVENTS) : Response.json(MESSAGE),
      });
      const provider = vertex({
        project: PROJECT,
        location: "global",
        model: CLAUDE,
        credentials: account,
        fetch: google.fetch,
      });
      const first: ModelResponse = await collectStream(provider.stream(HISTORY, TOOLS));
      const next: MessageInput[] = [
        ...HISTORY,
        first.message,
        { role: "tool", toolResults: [{ callId: "toolu_vrtx_01", content: "18°C" }] },
      ];
      await provider.complete(next, TOOLS);
      const replay = google.calls[1]!;
      equal(
        replay.url,
        `https://aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/global/publishers/anthropic/models/${CLAUDE}:rawPredict`,
      );
      const sent = (JSON.parse(replay.text) as { messages: Json[] }).messages[1]!;
      equal(
        JSON.stringify(sent.content),
        JSON.stringify(first.message.native!.blocks),
        "the blocks, byte for byte",
      );
      ok(replay.text.includes(JSON.stringify(SIGNATURE)), "the signature as it came");
      // The same history to the first-party API: Vertex's signed thinking is not sent there.
      let firstPartyBody: { messages: Json[] } | undefined;
      const firstParty = anthropic({
        apiKey: "sk-ant-test-0000000000000000",
        model: "claude-sonnet-4-5-20250929",
        fetch: async (_url, init) => {
          firstPartyBody = JSON.parse(String(init?.body));
          return Response.json(MESSAGE);
        },
      });
      const answer = await firstParty.complete(next, TOOLS);
      const rebuilt = firstPartyBody!.messages[1]!;
      equal(
        (rebuilt.content as Json[]).map((block) => block.type),
        ["tool_use"],
      );
      ok(!JSON.stringify(firstPartyBody).includes(SIGNATURE));
      ok(answer.warnings?.join(" ").includes("reasoning block(s) dropped"), String(answer.warnings));
    },
  },
];
