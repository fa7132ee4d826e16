/**
 * Core cases shared by every runtime: Node (vitest `node` project), workerd (vitest `workerd` project),
 * Deno and Bun (test/runtime/run.ts). They import only the public entry points and ./assert.ts — no test
 * framework, no Node API — so a case that passes in one runtime and fails in another is a portability bug
 * in the library, not in the harness.
 *
 * @module
 */

import { formatPath } from "../../src/core/validation-error.ts";
import {
  addUsage,
  anthropic,
  collectStream,
  type MessageInput,
  normalizeMessages,
  openaiChat,
  ProviderError,
  type ProviderErrorKind,
  parseCallOptions,
  parseMessages,
  type Response,
  type StreamEvent,
  totalInputTokens,
  ValidationError,
} from "../../src/index.ts";
import {
  errorKindFromStatus,
  isContentEvent,
  isRetryableKind,
  MAX_UPSTREAM_BODY,
  normalizeToolSpecs,
  PROVIDER_ERROR_KINDS,
  parseToolArguments,
  StreamAccumulator,
} from "../../src/protocols/index.ts";
import { FakeProvider, type FakeReply, FakeScriptExhaustedError } from "../../src/testing.ts";
import { readSse, type SseEvent, WireError } from "../../src/wire/index.ts";
import { equal, ok, rejects, throws } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";
import { bedrockCases } from "./cases-bedrock.ts";
import { geminiCases } from "./cases-gemini.ts";
import { mcpCases } from "./cases-mcp.ts";
import { responsesCases } from "./cases-openai-responses.ts";
import { substrateCases } from "./cases-substrate.ts";
import { vertexCases } from "./cases-vertex.ts";

const encoder = new TextEncoder();

/** A pull-based body delivering exactly `chunks`, one per read, recording cancellation (like a fetch body). */
function chunkedBody(chunks: readonly Uint8Array[]): {
  body: ReadableStream<Uint8Array>;
  state: { pulls: number; cancelled: boolean; cancelReason: unknown };
} {
  const state = { pulls: 0, cancelled: false, cancelReason: undefined as unknown };
  let next = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls++;
        const chunk = chunks[next++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk.slice());
      },
      cancel(reason) {
        state.cancelled = true;
        state.cancelReason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state };
}

/** `bytes` cut at the given offsets. */
function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(bytes.slice(start, offset));
    start = offset;
  }
  pieces.push(bytes.slice(start));
  return pieces;
}

async function collectSse(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(body)) events.push(event);
  return events;
}

/** Iterates `events` to the end or to its error; returns what arrived and what was thrown. */
async function drain(events: AsyncIterable<StreamEvent>): Promise<{ seen: StreamEvent[]; error: unknown }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

function providerError(
  kind: ProviderErrorKind,
  extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {},
) {
  return new ProviderError({ kind, message: `${kind} happened`, provider: "p", model: "m", ...extra });
}

const coreCases: RuntimeCase[] = [
  {
    name: "normalizeMessages fills every default and keeps native",
    run() {
      const native = { protocol: "anthropic-messages", origin: "anthropic", model: "m", blocks: [{ x: 1 }] };
      const input: MessageInput[] = [
        { role: "system", content: "be brief" },
        { role: "user" },
        { role: "assistant", toolCalls: [{ id: "c1", name: "weather" }], native },
        { role: "tool", toolResults: [{ callId: "c1" }] },
      ];
      const snapshot = JSON.stringify(input);
      equal(normalizeMessages(input), [
        { role: "system", content: "be brief", toolCalls: [], toolResults: [], synthetic: false },
        { role: "user", content: "", toolCalls: [], toolResults: [], synthetic: false },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "c1", name: "weather", arguments: {} }],
          toolResults: [],
          synthetic: false,
          native,
        },
        {
          role: "tool",
          content: "",
          toolCalls: [],
          toolResults: [{ callId: "c1", content: "", isError: false }],
          synthetic: false,
        },
      ]);
      equal(JSON.stringify(input), snapshot, "input must not be mutated");
    },
  },
  {
    name: "parseMessages validates, fills defaults and agrees with normalizeMessages",
    run() {
      const raw: unknown = JSON.parse(
        '[{"role":"user","content":"hi"},{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":{"a":1}}]}]',
      );
      const parsed = parseMessages(raw);
      equal(parsed, normalizeMessages(raw as MessageInput[]));
      equal(parsed[1]?.toolCalls, [{ id: "c1", name: "f", arguments: { a: 1 } }]);
      equal(parsed[0]?.synthetic, false);
    },
  },
  {
    name: "parseMessages names the bad field's path in a ValidationError",
    run() {
      const roleError = throws(
        () => parseMessages([{ role: "robot", content: "x" }]),
        ValidationError,
      ) as ValidationError;
      ok(roleError.message.startsWith("messages[0].role: "), roleError.message);
      equal(roleError.issues[0]?.path, "messages[0].role");
      ok(ValidationError.is(roleError));

      const nested = throws(() =>
        parseMessages(
          [{ role: "user" }, { role: "assistant", toolCalls: [{ id: 7, name: "f" }] }],
          "history",
        ),
      ) as ValidationError;
      ok(nested instanceof ValidationError);
      equal(nested.issues[0]?.path, "history[1].toolCalls[0].id");

      const several = throws(() => parseMessages([{ role: "nobody", content: 5 }])) as ValidationError;
      equal(several.issues.map((issue) => issue.path).sort(), ["messages[0].content", "messages[0].role"]);
      ok(several.message.includes("(and 1 more)"), several.message);

      throws(
        () => parseMessages({ role: "user" }),
        (error: ValidationError) => ValidationError.is(error),
      );
      equal(formatPath(["messages", 2, "toolCalls", 0, "id"]), "messages[2].toolCalls[0].id");
    },
  },
  {
    name: "parseCallOptions names options.<field> and rejects unknown keys",
    run() {
      equal(parseCallOptions(undefined), {});
      equal(parseCallOptions({ maxTokens: 10, thinking: { effort: "low" } }), {
        maxTokens: 10,
        thinking: { effort: "low" },
      });
      const bad = throws(() => parseCallOptions({ maxTokens: 1.5 }), ValidationError) as ValidationError;
      ok(bad.message.startsWith("options.maxTokens: "), bad.message);
      throws(() => parseCallOptions({ maxTokenz: 10 }), ValidationError);
    },
  },
  {
    name: "addUsage keeps undefined (not reported) distinct from 0",
    run() {
      const total = addUsage(
        { inputTokens: 0 },
        undefined,
        { outputTokens: 3 },
        { outputTokens: 4, inputTokens: 2 },
      );
      equal(total, { inputTokens: 2, outputTokens: 7 });
      ok(!("cachedInputTokens" in total), "an unreported field must stay absent");

      const zero = addUsage({ cachedInputTokens: 0 });
      equal(zero, { cachedInputTokens: 0 });
      ok(Object.keys(zero).length === 1, "a reported zero is kept, not dropped");
      equal(addUsage(), {});
      equal(addUsage(undefined, {}), {});
      equal(addUsage({}, {}), {});

      equal(totalInputTokens({}), undefined);
      equal(totalInputTokens({ cacheWriteTokens: 0 }), 0);
      equal(
        totalInputTokens({ inputTokens: 5, cachedInputTokens: 10, cacheWriteTokens: 1, outputTokens: 99 }),
        16,
      );
      equal(addUsage({ reasoningTokens: 1 }, { reasoningTokens: 2 }), { reasoningTokens: 3 });
    },
  },
  {
    name: "ProviderError toJSON/fromJSON round trip through JSON text",
    async run() {
      const original = new ProviderError({
        kind: "rate_limit",
        message: "slow down",
        provider: "anthropic",
        model: "claude",
        status: 429,
        retryable: false,
        retryAfterMs: 1500,
        code: "rate_limit_error",
        requestId: "req_1",
        upstreamBody: '{"error":"slow down"}',
        partialOutput: true,
        cause: new Error("inner"),
      });
      const json = original.toJSON();
      equal(json, {
        name: "ProviderError",
        kind: "rate_limit",
        message: "slow down",
        provider: "anthropic",
        model: "claude",
        status: 429,
        retryable: false,
        retryAfterMs: 1500,
        code: "rate_limit_error",
        requestId: "req_1",
        upstreamBody: '{"error":"slow down"}',
        partialOutput: true,
      });
      const revived = ProviderError.fromJSON(JSON.parse(JSON.stringify(original)));
      ok(revived instanceof ProviderError);
      ok(revived instanceof Error);
      equal(revived.name, "ProviderError");
      equal(revived.toJSON(), json);
      ok(ProviderError.is({ name: "ProviderError" }), "is() must work across realms, by name");
      ok(!ProviderError.is(new Error("x")));

      const sparse = providerError("network");
      equal(ProviderError.fromJSON(JSON.parse(JSON.stringify(sparse))).toJSON(), sparse.toJSON());

      const marked = original.with({ partialOutput: false, message: "changed" });
      equal(marked.partialOutput, false);
      equal(marked.message, "changed");
      equal(marked.retryAfterMs, 1500);
      equal((marked.cause as Error).message, "inner");
      await rejects(Promise.reject(original), (error: ProviderError) => error.kind === "rate_limit");
    },
  },
  {
    name: "ProviderError retryable defaults per kind, overridable",
    run() {
      const retryable = new Set(["rate_limit", "overloaded", "server", "timeout", "network", "truncated"]);
      equal(PROVIDER_ERROR_KINDS.length, 12);
      for (const kind of PROVIDER_ERROR_KINDS) {
        equal(providerError(kind).retryable, retryable.has(kind), `retryable default of ${kind}`);
        equal(isRetryableKind(kind), retryable.has(kind), `isRetryableKind(${kind})`);
      }
      equal(providerError("rate_limit", { retryable: false }).retryable, false);
      equal(providerError("auth", { retryable: true }).retryable, true);
      equal(providerError("server").partialOutput, false);
      const statuses: Record<number, ProviderErrorKind> = {
        400: "bad_request",
        401: "auth",
        403: "auth",
        404: "not_found",
        408: "timeout",
        409: "server",
        413: "bad_request",
        422: "bad_request",
        429: "rate_limit",
        500: "server",
        503: "overloaded",
        504: "timeout",
        529: "overloaded",
      };
      for (const [status, kind] of Object.entries(statuses))
        equal(errorKindFromStatus(Number(status)), kind, status);
    },
  },
  {
    name: "ProviderError redacts credentials from message, upstreamBody and JSON",
    run() {
      const apiKey = "custom-secret-7f3a9c";
      const openaiKey = "sk-proj-ABCDEFGHijklmnop1234567890";
      const error = new ProviderError({
        kind: "auth",
        message: `bad key ${apiKey} (also tried ${openaiKey})`,
        provider: "openai",
        model: "gpt",
        status: 401,
        upstreamBody: `{"error":"invalid key ${openaiKey}","echo":"${apiKey}","auth":"Bearer abcdefghijklmnop"}`,
        secrets: [apiKey, undefined],
      });
      const surfaces = [
        error.message,
        error.upstreamBody ?? "",
        JSON.stringify(error),
        JSON.stringify(error.toJSON()),
      ];
      for (const text of surfaces) {
        ok(!text.includes(apiKey), `secret leaked: ${text}`);
        ok(!text.includes(openaiKey), `sk- key leaked: ${text}`);
        ok(!text.includes("sk-proj"), `sk- key prefix leaked: ${text}`);
        ok(!text.includes("abcdefghijklmnop"), `bearer token leaked: ${text}`);
        ok(text.includes("[redacted]"), `expected a [redacted] marker in ${text}`);
      }
      ok(!("secrets" in error.toJSON()), "secrets must not be stored");
      equal(error.message, "bad key [redacted] (also tried [redacted])");

      const long = providerError("server", { upstreamBody: "x".repeat(MAX_UPSTREAM_BODY + 10) });
      ok(long.upstreamBody!.startsWith("x".repeat(MAX_UPSTREAM_BODY)));
      ok(long.upstreamBody!.endsWith("[10 more characters]"), long.upstreamBody!.slice(-40));
    },
  },
  {
    name: "FakeProvider answers in script order and records normalised calls",
    async run() {
      const fake = new FakeProvider({
        script: [
          { toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Oslo" } }] },
          { text: "It is sunny.", usage: { inputTokens: 3, outputTokens: 0 } },
        ],
      });
      equal(fake.remaining, 2);
      const history: MessageInput[] = [{ role: "user", content: "Weather in Oslo?" }];
      const tools = [
        { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
      ];
      const first = await fake.complete(history, tools, { maxTokens: 50 });
      equal(first.stopReason, "tool-calls");
      equal(first.message.toolCalls, [{ id: "call_1", name: "weather", arguments: { city: "Oslo" } }]);
      history.push(first.message, { role: "tool", toolResults: [{ callId: "call_1", content: "sunny" }] });
      const second = await fake.complete(history);
      equal(second, {
        message: {
          role: "assistant",
          content: "It is sunny.",
          toolCalls: [],
          toolResults: [],
          synthetic: false,
        },
        usage: { inputTokens: 3, outputTokens: 0 },
        stopReason: "stop",
        model: "fake-model",
        provider: "fake",
      });
      equal(fake.remaining, 0);
      equal(
        fake.calls.map((call) => [call.method, call.messages.length, call.tools.length]),
        [
          ["complete", 1, 1],
          ["complete", 3, 0],
        ],
      );
      equal(fake.calls[0]?.options, { maxTokens: 50 });
      equal(fake.calls[0]?.messages, [
        { role: "user", content: "Weather in Oslo?", toolCalls: [], toolResults: [], synthetic: false },
      ]);
      equal(fake.calls[1]?.messages[2]?.toolResults, [
        { callId: "call_1", content: "sunny", isError: false },
      ]);
      // Recorded copies: mutating the history afterwards does not rewrite what was sent.
      (history[0] as { content: string }).content = "changed";
      equal(fake.calls[0]?.messages[0]?.content, "Weather in Oslo?");
    },
  },
  {
    name: "FakeProvider: exhausted script, scripted failure, computed step, abort",
    async run() {
      const failure = providerError("overloaded");
      const fake = new FakeProvider({
        script: [{ error: failure }, (call) => ({ text: `echo: ${call.messages.at(-1)?.content}` })],
        name: "scripted",
        model: "m1",
      });
      const thrown = await rejects(fake.complete([{ role: "user", content: "a" }]));
      ok(thrown === failure, "the scripted error instance is thrown as is");
      const echoed = await fake.complete([{ role: "user", content: "ping" }]);
      equal(echoed.message.content, "echo: ping");
      equal(echoed.provider, "scripted");
      equal(echoed.model, "m1");

      const exhausted = (await rejects(
        fake.complete([{ role: "user", content: "again" }]),
        FakeScriptExhaustedError,
      )) as FakeScriptExhaustedError;
      ok(!ProviderError.is(exhausted), "an exhausted script is a test bug, not a ProviderError");
      ok(/call #3 \(complete\)/.test(exhausted.message), exhausted.message);
      ok(/only 2 step\(s\)/.test(exhausted.message), exhausted.message);
      equal(fake.calls.length, 3);

      await rejects(
        drain(new FakeProvider().stream([{ role: "user" }])).then(({ error }) => {
          throw error;
        }),
        FakeScriptExhaustedError,
      );

      const controller = new AbortController();
      controller.abort(new Error("user pressed stop"));
      const aborted = (await rejects(
        new FakeProvider({ script: [{ text: "never" }] }).complete([{ role: "user" }], [], {
          signal: controller.signal,
        }),
        ProviderError,
      )) as ProviderError;
      equal(aborted.kind, "aborted");
      equal(aborted.retryable, false);

      const late = new AbortController();
      const slow = new FakeProvider({ script: [{ text: "late", delayMs: 5_000 }] });
      const pending = slow.complete([{ role: "user" }], undefined, { signal: late.signal });
      setTimeout(() => late.abort(), 5);
      const started = Date.now();
      equal(((await rejects(pending, ProviderError)) as ProviderError).kind, "aborted");
      ok(Date.now() - started < 2_000, "abort must interrupt the scripted delay");
    },
  },
  {
    name: "FakeProvider stream delivers events before an injected mid-stream error",
    async run() {
      const failure = providerError("network", { partialOutput: true });
      const fake = new FakeProvider({
        script: [
          {
            events: [
              { type: "text-delta", text: "Hel" },
              { type: "text-delta", text: "lo" },
              { type: "text-delta", text: " world" },
            ],
            failAt: { at: 2, error: failure },
          },
        ],
      });
      const { seen, error } = await drain(fake.stream([{ role: "user", content: "hi" }]));
      equal(seen, [
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo" },
      ]);
      ok(error === failure, `expected the injected error, got ${String(error)}`);
      equal(fake.calls[0]?.method, "stream");

      // failAt past the last event: every event, then the error instead of `done`.
      const atEnd = new FakeProvider({
        script: [{ events: [{ type: "text-delta", text: "x" }], failAt: { at: 1, error: failure } }],
      });
      const tail = await drain(atEnd.stream([{ role: "user" }]));
      equal(tail.seen, [{ type: "text-delta", text: "x" }]);
      ok(tail.error === failure);
    },
  },
  {
    name: "FakeProvider stream() done.response deep-equals complete() for the same reply",
    async run() {
      const reply: FakeReply = {
        text: "Grüße 😀 from the fake",
        reasoning: "thinking…",
        toolCalls: [
          { id: "t1", name: "lookup", arguments: { q: "x" } },
          { id: "t2", name: "broken", arguments: {}, argumentsText: '{"q": ' },
        ],
        usage: { inputTokens: 10, outputTokens: 0, cachedInputTokens: 0 },
        rawStopReason: "tool_use",
        native: { protocol: "fake", origin: "fake", model: "fake-model", blocks: [{ kind: "sig" }] },
        chunkSize: 3,
      };
      const a = new FakeProvider({ script: [reply] });
      const b = new FakeProvider({ script: [reply] });
      const completed = await a.complete([{ role: "user", content: "go" }]);
      const events: StreamEvent[] = [];
      for await (const event of b.stream([{ role: "user", content: "go" }])) events.push(event);
      const done = events.at(-1);
      ok(done?.type === "done", "the last event must be done");
      equal(done.response, completed);
      equal(events.filter((event) => event.type === "done").length, 1, "exactly one done event");
      const text = events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
      equal(text, reply.text);
      ok(
        events.filter((event) => event.type === "text-delta").length > 1,
        "chunkSize must split the text into several deltas",
      );
      for (const event of events) {
        if (event.type === "text-delta")
          ok(!/[\uD800-\uDBFF]$/.test(event.text), "a delta split a surrogate pair");
      }
      equal(
        events.filter(isContentEvent).map((event) => event.type),
        [
          "reasoning-delta",
          ...events.filter((event) => event.type === "text-delta").map(() => "text-delta"),
          "tool-call-start",
          "tool-call-delta",
          "tool-call-end",
          "tool-call-start",
          "tool-call-delta",
          "tool-call-end",
        ],
      );
      equal(completed.stopReason, "tool-calls");
      equal(completed.reasoning, "thinking…");

      const c = new FakeProvider({ script: [reply] });
      const seenByCallback: string[] = [];
      const collected = await collectStream(c.stream([{ role: "user", content: "go" }]), {
        onEvent: (event) => seenByCallback.push(event.type),
      });
      equal(collected, completed);
      equal(
        seenByCallback,
        events.map((event) => event.type),
      );
    },
  },
  {
    name: "collectStream raises ProviderError kind truncated when no done event arrives",
    async run() {
      async function* cutShort(): AsyncGenerator<StreamEvent> {
        yield { type: "text-delta", text: "half a mess" };
        yield { type: "usage", usage: { outputTokens: 3 } };
      }
      const error = (await rejects(
        collectStream(cutShort(), { source: { provider: "openai", model: "gpt-x" } }),
        ProviderError,
      )) as ProviderError;
      equal(error.kind, "truncated");
      equal(error.partialOutput, true);
      equal(error.retryable, true);
      equal([error.provider, error.model], ["openai", "gpt-x"]);

      async function* nothing(): AsyncGenerator<StreamEvent> {}
      const empty = (await rejects(collectStream(nothing()), ProviderError)) as ProviderError;
      equal(empty.kind, "truncated");
      equal(empty.partialOutput, false);
      equal([empty.provider, empty.model], ["unknown", "unknown"]);

      // Stops at done: later events are never pulled.
      let pulledAfterDone = false;
      const response: Response = {
        message: { role: "assistant", content: "x", toolCalls: [], toolResults: [], synthetic: false },
        usage: {},
        stopReason: "stop",
        model: "m",
        provider: "p",
      };
      async function* withTail(): AsyncGenerator<StreamEvent> {
        yield { type: "done", response };
        pulledAfterDone = true;
        yield { type: "text-delta", text: "late" };
      }
      equal(await collectStream(withTail()), response);
      equal(pulledAfterDone, false);
    },
  },
  {
    name: "StreamAccumulator builds a response from deltas, keeping unparsable arguments as text",
    run() {
      const accumulator = new StreamAccumulator();
      const events: StreamEvent[] = [
        { type: "reasoning-delta", text: "let me " },
        { type: "reasoning-delta", text: "see" },
        { type: "text-delta", text: "Calling" },
        { type: "tool-call-start", index: 0, id: "a", name: "one" },
        { type: "tool-call-delta", index: 0, id: "a", argumentsDelta: '{"x":' },
        { type: "tool-call-delta", index: 0, id: "a", argumentsDelta: "1}" },
        { type: "tool-call-start", index: 1, id: "b", name: "two" },
        { type: "tool-call-delta", index: 1, id: "b", argumentsDelta: '{"cut": "of' },
        { type: "usage", usage: { inputTokens: 1 } },
        { type: "usage", usage: { inputTokens: 1, outputTokens: 9 } },
      ];
      for (const event of events) accumulator.add(event);
      equal(accumulator.toResponse({ model: "m", provider: "p", id: "resp_1" }), {
        message: {
          role: "assistant",
          content: "Calling",
          toolCalls: [
            { id: "a", name: "one", arguments: { x: 1 }, argumentsText: '{"x":1}' },
            { id: "b", name: "two", arguments: {}, argumentsText: '{"cut": "of' },
          ],
          toolResults: [],
          synthetic: false,
        },
        usage: { inputTokens: 1, outputTokens: 9 },
        stopReason: "tool-calls",
        model: "m",
        provider: "p",
        id: "resp_1",
        reasoning: "let me see",
      });
      accumulator.add({
        type: "tool-call-end",
        index: 1,
        toolCall: { id: "b", name: "two", arguments: { y: 2 } },
      });
      equal(accumulator.toResponse({ model: "m", provider: "p" }).message.toolCalls[1], {
        id: "b",
        name: "two",
        arguments: { y: 2 },
      });
      equal(
        new StreamAccumulator().toResponse({ model: "m", provider: "p", stopReason: "length" }).stopReason,
        "length",
      );

      equal(parseToolArguments('{"a":[1,2]}'), { a: [1, 2] });
      equal(parseToolArguments("[1,2]"), {});
      equal(parseToolArguments('"text"'), {});
      equal(parseToolArguments("null"), {});
      equal(parseToolArguments("{bad"), {});
      equal(parseToolArguments("   "), {});
    },
  },
  {
    name: "readSse: multi-byte UTF-8 split across chunks, CRLF endings, final event without blank line",
    async run() {
      const text =
        "\uFEFF: keep-alive\r\nretry: 2500\r\nevent: greet\r\ndata: h\u00e9llo \u{1F600}\r\nid: 7\r\n\r\n" +
        "data: line one\r\ndata: line two \u20AC\r\n\r\ndata: tail \u00fc";
      const bytes = encoder.encode(text);
      // Cut inside é (2 bytes), inside 😀 (4 bytes, twice), inside € (3 bytes), inside ü, between every \r\n.
      const offsets = new Set<number>([1, 2]);
      const multibyte = [0xc3, 0xf0, 0xe2];
      bytes.forEach((byte, index) => {
        if (multibyte.includes(byte)) offsets.add(index + 1);
        if (byte === 0xf0) offsets.add(index + 3);
        if (byte === 0x0d) offsets.add(index + 1);
      });
      const chunks = cut(
        bytes,
        [...offsets].sort((x, y) => x - y),
      );
      ok(chunks.length > 10, `expected many chunks, got ${chunks.length}`);
      const comments: string[] = [];
      const retries: number[] = [];
      const { body, state } = chunkedBody(chunks);
      const events: SseEvent[] = [];
      for await (const event of readSse(body, {
        onComment: (comment) => comments.push(comment),
        onRetry: (ms) => retries.push(ms),
      }))
        events.push(event);
      equal(events, [
        { event: "greet", data: "h\u00e9llo \u{1F600}", id: "7" },
        // `id` is per event here (undefined when the event sent none), not the SSE "last event ID".
        { event: undefined, data: "line one\nline two \u20AC", id: undefined },
        { event: undefined, data: "tail \u00fc", id: undefined },
      ]);
      equal(comments, ["keep-alive"]);
      equal(retries, [2500]);
      equal(state.cancelled, false);
    },
  },
  {
    name: "readSse gives the same events one byte at a time and in one chunk",
    async run() {
      const text = "event: a\r\ndata: \u00e9\u00e9\u{1F600}\r\n\r\nevent: b\rdata: x\r\rdata: y\n\ndata: z";
      const bytes = encoder.encode(text);
      const whole = await collectSse(chunkedBody([bytes]).body);
      const bytewise = await collectSse(chunkedBody(Array.from(bytes, (byte) => Uint8Array.of(byte))).body);
      const expected: SseEvent[] = [
        { event: "a", data: "\u00e9\u00e9\u{1F600}", id: undefined },
        { event: "b", data: "x", id: undefined },
        { event: undefined, data: "y", id: undefined },
        { event: undefined, data: "z", id: undefined },
      ];
      equal(whole, expected);
      equal(bytewise, expected);
      equal(await collectSse(chunkedBody([]).body), []);
    },
  },
  {
    name: "readSse yields each event before the body ends and cancels the body when the consumer breaks",
    async run() {
      let served = 0;
      let cancelled = false;
      const endless = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            served++;
            controller.enqueue(encoder.encode(`data: ${served}\n\n`));
          },
          cancel() {
            cancelled = true;
          },
        },
        { highWaterMark: 0 },
      );
      const received: string[] = [];
      for await (const event of readSse(endless)) {
        received.push(event.data);
        if (received.length === 3) break;
      }
      equal(received, ["1", "2", "3"]);
      equal(cancelled, true, "breaking out of the loop must cancel the body");
      ok(served <= 4, `read ${served} chunks for 3 events`);

      // An exception in the consumer cancels it too.
      const { body, state } = chunkedBody([encoder.encode("data: a\n\n"), encoder.encode("data: b\n\n")]);
      await rejects(async () => {
        for await (const _event of readSse(body)) throw new Error("consumer failed");
      }, /consumer failed/);
      equal(state.cancelled, true);

      // Reading to the end does not cancel, and releases the lock.
      const finished = chunkedBody([encoder.encode("data: a\n\n")]);
      equal((await collectSse(finished.body)).length, 1);
      equal(finished.state.cancelled, false);
      equal(finished.body.locked, false);
    },
  },
  {
    name: "readSse fails with WireError buffer_overflow and propagates body errors after earlier events",
    async run() {
      const flood = chunkedBody([encoder.encode("data: "), encoder.encode("x".repeat(200))]);
      const overflow = (await rejects(async () => {
        for await (const _event of readSse(flood.body, { maxBufferSize: 64 })) {
          // nothing
        }
      }, WireError)) as WireError;
      equal(overflow.code, "buffer_overflow");
      ok(WireError.is(overflow));
      equal(flood.state.cancelled, true, "a failed read loop must cancel the body");

      let step = 0;
      const broken = new ReadableStream<Uint8Array>({
        pull(controller) {
          step++;
          if (step === 1) controller.enqueue(encoder.encode("data: before\n\n"));
          else controller.error(new TypeError("connection reset"));
        },
      });
      const seen: string[] = [];
      await rejects(async () => {
        for await (const event of readSse(broken)) seen.push(event.data);
      }, /connection reset/);
      equal(seen, ["before"]);
    },
  },
  {
    name: "normalizeToolSpecs accepts plain JSON Schema and names bad tools by path",
    run() {
      equal(normalizeToolSpecs(undefined), []);
      equal(
        normalizeToolSpecs([
          {
            name: "get_weather",
            description: "Weather for a city",
            parameters: {
              $schema: "https://json-schema.org/draft/2020-12/schema",
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
            },
            strict: true,
          },
          { name: "no-args" },
        ]),
        [
          {
            name: "get_weather",
            description: "Weather for a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            strict: true,
          },
          { name: "no-args", parameters: { type: "object", properties: {} } },
        ],
      );
      const badName = throws(
        () => normalizeToolSpecs([{ name: "has space" }]),
        ValidationError,
      ) as ValidationError;
      ok(badName.message.startsWith("tools[0].name: "), badName.message);
      equal(badName.issues[0]?.path, "tools[0].name");
      const duplicate = throws(
        () => normalizeToolSpecs([{ name: "a" }, { name: "a" }]),
        ValidationError,
      ) as ValidationError;
      equal(duplicate.issues[0]?.path, "tools[1].name");
      const notObject = throws(
        () => normalizeToolSpecs([{ name: "ok", parameters: { type: "string" } }]),
        ValidationError,
      ) as ValidationError;
      equal(notObject.issues[0]?.path, "tools[0].parameters.type");
      throws(() => normalizeToolSpecs([{ name: "x".repeat(65) }]), /tools\[0\]\.name/);
    },
  },
  {
    name: "anthropic() streams thinking + tool_use through an injected fetch and replays the signed blocks",
    run: async () => {
      const events = [
        {
          type: "message_start",
          message: {
            id: "msg_rt",
            model: "claude-sonnet-4-5",
            content: [],
            usage: { input_tokens: 9, output_tokens: 1 },
          },
        },
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: "Need the weather. ☀️" },
        },
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "signature_delta", signature: "EqQBsig/part1+" },
        },
        { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "part2==" } },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "toolu_1", name: "weather", input: {} },
        },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '{"city":' },
        },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '"Zürich"}' },
        },
        { type: "content_block_stop", index: 1 },
        {
          type: "message_delta",
          delta: { stop_reason: "tool_use" },
          usage: { output_tokens: 40, output_tokens_details: { thinking_tokens: 0 } },
        },
        { type: "message_stop" },
      ];
      const bytes = new TextEncoder().encode(
        events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""),
      );
      const bodies: string[] = [];
      const fetchImpl = (async (_url: unknown, init?: { body?: unknown }) => {
        bodies.push(String(init?.body));
        // Three-byte chunks: multi-byte characters and events are split everywhere.
        let offset = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (offset >= bytes.length) controller.close();
            else {
              controller.enqueue(bytes.slice(offset, offset + 3));
              offset += 3;
            }
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }) as typeof fetch;
      const provider = anthropic({
        apiKey: "sk-ant-test-0000000000000000",
        model: "claude-sonnet-4-5",
        fetch: fetchImpl,
      });
      const history: MessageInput[] = [{ role: "user", content: "Weather in Zürich?" }];
      const response = await collectStream(
        provider.stream(history, [{ name: "weather" }], { thinking: { budgetTokens: 2048 } }),
      );
      equal(response.stopReason, "tool-calls");
      equal(response.message.toolCalls, [{ id: "toolu_1", name: "weather", arguments: { city: "Zürich" } }]);
      equal(response.usage.reasoningTokens, 0);
      const blocks = response.message.native?.blocks as Array<Record<string, unknown>>;
      equal(blocks[0], {
        type: "thinking",
        thinking: "Need the weather. ☀️",
        signature: "EqQBsig/part1+part2==",
      });
      history.push(response.message, {
        role: "tool",
        toolResults: [{ callId: "toolu_1", content: "sunny" }],
      });
      await collectStream(
        provider.stream(history, [{ name: "weather" }], { thinking: { budgetTokens: 2048 } }),
      ).catch(() => undefined);
      const replay = JSON.parse(bodies[1]!) as { messages: Array<{ role: string; content: unknown[] }> };
      equal(JSON.stringify(replay.messages[1]!.content), JSON.stringify(blocks));
      equal(replay.messages[2]!.content[0], {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "sunny",
        cache_control: { type: "ephemeral" },
      });
    },
  },
  {
    name: "openaiChat() streams parallel tool calls interleaved by index from an in-process OpenAI-compatible server",
    async run() {
      const id = "chatcmpl-rt";
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
        id,
        object: "chat.completion.chunk",
        model: "served-model",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      const call = (index: number, fields: Record<string, unknown>) =>
        chunk({ tool_calls: [{ index, ...fields }] });
      const events: unknown[] = [
        chunk({ role: "assistant", content: null }),
        chunk({ content: "Both at once. " }),
        call(0, { id: "call_a", type: "function", function: { name: "weather", arguments: "" } }),
        call(1, { id: "call_b", type: "function", function: { name: "weather", arguments: '{"ci' } }),
        call(0, { function: { arguments: '{"city": "Z' } }),
        call(1, { function: { arguments: 'ty": "Tōkyō"}' } }),
        call(0, { function: { arguments: 'ürich"}' } }),
        chunk({}, "tool_calls"),
        {
          id,
          object: "chat.completion.chunk",
          model: "served-model",
          choices: [],
          usage: {
            prompt_tokens: 120,
            completion_tokens: 33,
            prompt_tokens_details: { cached_tokens: 100 },
            completion_tokens_details: { reasoning_tokens: 0 },
          },
        },
        "[DONE]",
      ];
      const bytes = encoder.encode(
        events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join(""),
      );
      const requests: { url: string; body: Record<string, unknown> }[] = [];
      // The fake server: a fetch handler that reads a real Request and answers with a streaming Response,
      // four bytes per read, so events and multi-byte characters are split everywhere.
      const server = (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (new URL(request.url).pathname !== "/v1/chat/completions")
          return new Response("", { status: 404 });
        requests.push({ url: request.url, body: (await request.json()) as Record<string, unknown> });
        let offset = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (offset >= bytes.length) {
              controller.close();
              return;
            }
            controller.enqueue(bytes.slice(offset, offset + 4));
            offset += 4;
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }) as typeof fetch;
      const provider = openaiChat({
        model: "served-model",
        baseURL: "http://llm.local/v1",
        endpoint: "vllm",
        fetch: server,
      });
      const seen: StreamEvent[] = [];
      const response = await collectStream(
        provider.stream([{ role: "user", content: "weather?" }], [{ name: "weather" }]),
        {
          onEvent: (event) => seen.push(event),
        },
      );
      equal(requests.length, 1);
      equal(requests[0]!.url, "http://llm.local/v1/chat/completions");
      equal(requests[0]!.body.stream_options, { include_usage: true });
      equal(response.message.content, "Both at once. ");
      equal(response.message.toolCalls, [
        { id: "call_a", name: "weather", arguments: { city: "Zürich" }, argumentsText: '{"city": "Zürich"}' },
        { id: "call_b", name: "weather", arguments: { city: "Tōkyō" }, argumentsText: '{"city": "Tōkyō"}' },
      ]);
      equal(response.stopReason, "tool-calls");
      equal(response.usage, {
        inputTokens: 20,
        outputTokens: 33,
        cachedInputTokens: 100,
        reasoningTokens: 0,
      });
      // Deltas keep the wire's interleaving, each tagged with its call's position and id.
      const deltas = seen.flatMap((event) =>
        event.type === "tool-call-delta" ? [[event.index, event.id, event.argumentsDelta]] : [],
      );
      equal(deltas, [
        [1, "call_b", '{"ci'],
        [0, "call_a", '{"city": "Z'],
        [1, "call_b", 'ty": "Tōkyō"}'],
        [0, "call_a", 'ürich"}'],
      ]);
      equal(
        seen
          .filter((event) => event.type === "tool-call-end")
          .map((event) => event.type === "tool-call-end" && event.index),
        [0, 1],
      );
    },
  },
  {
    name: "anthropic().stream(): a compaction summary and 10,000-delta thinking and text blocks come out whole, as complete() gives them",
    run: async () => {
      const thinking = Array.from({ length: 10_000 }, (_, index) => `t${index}é🙂`);
      const text = Array.from({ length: 10_000 }, (_, index) => (index % 50 === 7 ? "" : `x${index}"\\`));
      const signature = `Eo${"s".repeat(500)}==`;
      const summary = "The user asked for a greeting.";
      const events: unknown[] = [
        { type: "message_start", message: { id: "m1", model: "claude-sonnet-4-6", content: [], usage: {} } },
        { type: "content_block_start", index: 0, content_block: { type: "compaction", content: null } },
        { type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: summary } },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
        ...thinking.map((piece) => ({
          type: "content_block_delta",
          index: 1,
          delta: { type: "thinking_delta", thinking: piece },
        })),
        { type: "content_block_delta", index: 1, delta: { type: "signature_delta", signature } },
        { type: "content_block_stop", index: 1 },
        { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
        ...text.map((piece) => ({
          type: "content_block_delta",
          index: 2,
          delta: { type: "text_delta", text: piece },
        })),
        { type: "content_block_stop", index: 2 },
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } },
        { type: "message_stop" },
      ];
      const sse = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
      const blocks = [
        { type: "compaction", content: summary },
        { type: "thinking", thinking: thinking.join(""), signature },
        { type: "text", text: text.join("") },
      ];
      const whole = JSON.stringify({
        id: "m1",
        model: "claude-sonnet-4-6",
        content: blocks,
        stop_reason: "end_turn",
        usage: { output_tokens: 5 },
      });
      const provider = (body: string, type: string) =>
        anthropic({
          apiKey: "sk-ant-test-0000000000000000",
          model: "claude-sonnet-4-6",
          fetch: (async () => new Response(body, { headers: { "content-type": type } })) as typeof fetch,
        });
      const streamed = await collectStream(
        provider(sse, "text/event-stream").stream([{ role: "user", content: "hi" }]),
      );
      equal(streamed.message.native?.blocks, blocks);
      equal(streamed.message.content, text.join(""));
      equal(streamed.reasoning, thinking.join(""));
      equal(await provider(whole, "application/json").complete([{ role: "user", content: "hi" }]), streamed);
    },
  },
  {
    name: "a connection nobody accepts is a network ProviderError; one the runtime denies (Deno) is not retryable",
    run: async () => {
      // The runtime's own fetch, to a loopback port where nothing listens (or which Deno, run without
      // --allow-net, refuses to open at all).
      const claude = anthropic({
        apiKey: "sk-ant-runtime-case-0000000000",
        model: "claude-sonnet-4-6",
        baseURL: "http://127.0.0.1:18089/v1",
      });
      const error = await rejects(() => claude.complete([{ role: "user", content: "hi" }]));
      ok(ProviderError.is(error), `expected a ProviderError, got ${String(error)}`);
      equal(error.kind, "network");
      ok(!error.message.includes("sk-ant-runtime-case"), "the key stays out of the message");
      const denied = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
      equal(error.retryable, !denied);
      if (denied)
        ok(error.message.includes("--allow-net"), `Deno's refusal says what to do: ${error.message}`);
    },
  },
];

/** Every shared case: the core's above, then each area's from its own file. */
export const cases: RuntimeCase[] = [
  ...coreCases,
  ...responsesCases,
  ...bedrockCases,
  ...geminiCases,
  ...substrateCases,
  ...vertexCases,
  ...mcpCases,
];
