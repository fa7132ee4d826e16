/**
 * Shared pieces of the gateway tests in workerd: a gateway built by `createWorker()` whose upstream
 * providers are faked at the fetch layer, recorded-style Anthropic and OpenAI bodies (JSON and SSE), an SSE
 * reader for the gateway's own streams, and the Durable Object alarm clock the task tests drive by hand.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type CreateWorkerOptions, createWorker, type WorkerEnv } from "../../src/worker/app.ts";
import type { TaskRuntime } from "../../src/worker/task-object.ts";

export const TOKEN = "test-token-a";
export const ANTHROPIC_KEY = env.ANTHROPIC_API_KEY;
export const OPENAI_KEY = "sk-proj-test-openai-key-1111111111";

/** The test env (bindings, GATEWAY_TOKENS, ANTHROPIC_API_KEY) plus an OpenAI key secret. */
export const gatewayEnv: WorkerEnv = { ...env, OPENAI_API_KEY: OPENAI_KEY };

export const ANTHROPIC_BASE = "https://anthropic.upstream.test/v1";
export const OPENAI_BASE = "https://openai.upstream.test/v1";
export const MEMBER_A = "http://member-a.test/v1";
export const MEMBER_B = "http://member-b.test/v1";

/** Routes of the gateway under test: one per protocol, a two-member pool, and the demo route. */
export const ROUTES = {
  routes: {
    claude: {
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: ANTHROPIC_BASE,
      apiKeySecret: "ANTHROPIC_API_KEY",
    },
    gpt: { protocol: "openai-chat", model: "gpt-4o", baseURL: OPENAI_BASE, apiKeySecret: "OPENAI_API_KEY" },
    pool: {
      pool: [
        { protocol: "openai-chat", endpoint: "vllm", model: "Qwen/Qwen3-8B", baseURL: MEMBER_A },
        { protocol: "openai-chat", endpoint: "vllm", model: "Qwen/Qwen3-8B", baseURL: MEMBER_B },
      ],
    },
    demo: { demo: true },
  },
};

/** One request the fake upstream received. */
export interface UpstreamCall {
  url: string;
  host: string;
  headers: Headers;
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
}

export type UpstreamHandler = (call: UpstreamCall) => Response | Promise<Response>;

/** A `fetch` that records every call and answers with `handler`. */
export function fakeUpstream(handler: UpstreamHandler): { fetch: typeof fetch; calls: UpstreamCall[] } {
  const calls: UpstreamCall[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const call: UpstreamCall = {
      url: request.url,
      host: new URL(request.url).host,
      headers: request.headers,
      body: (await request.json()) as Record<string, unknown>,
      // The signal the provider passed, not the Request's copy: that is what a real fetch would follow.
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    return handler(call);
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

/** A gateway over `ROUTES` (or `config`) whose upstreams are `handler`. */
export function gateway(handler: UpstreamHandler, options: CreateWorkerOptions = {}) {
  const upstream = fakeUpstream(handler);
  const worker = createWorker({
    config: ROUTES,
    ...options,
    providers: { ...options.providers, fetch: upstream.fetch },
  });
  const call = (path: string, init: RequestInit & { json?: unknown } = {}, environment = gatewayEnv) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${TOKEN}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    const request = new Request(`http://gateway.test${path}`, {
      ...rest,
      method: rest.method ?? (json === undefined ? "GET" : "POST"),
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return worker.app.fetch(request, environment);
  };
  return { worker, calls: upstream.calls, call };
}

// ---------------------------------------------------------------------------------------------------------
// Upstream bodies, shaped as the APIs send them.

const encoder = new TextEncoder();

/** A streaming body of `frames`; `end` decides how it stops after the last one. */
export function streamBody(
  frames: readonly string[],
  options: {
    /** `close` (default): a clean end; `error`: the connection breaks; `hang`: nothing more, until `signal`. */
    end?: "close" | "error" | "hang";
    signal?: AbortSignal | undefined;
    onCancel?: (reason: unknown) => void;
  } = {},
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const frame = frames[next++];
      if (frame !== undefined) {
        controller.enqueue(encoder.encode(frame));
        return;
      }
      if (options.end === "error") {
        controller.error(new TypeError("Network connection lost."));
      } else if (options.end === "hang") {
        await new Promise<void>((resolve) => {
          if (options.signal?.aborted) resolve();
          options.signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        controller.error(options.signal?.reason ?? new DOMException("aborted", "AbortError"));
      } else {
        controller.close();
      }
    },
    cancel(reason) {
      options.onCancel?.(reason);
    },
  });
}

export function sseResponse(body: ReadableStream<Uint8Array> | string, status = 200): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

/** Anthropic SSE frames (`event:` + `data:`), one string per frame. */
export function anthropicFrames(events: readonly Record<string, unknown>[]): string[] {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}

const ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929";

/** The events of an Anthropic answer: text, then optionally one tool call whose input arrives in pieces. */
export function anthropicEvents(
  text: readonly string[],
  tool?: { id: string; name: string; pieces: readonly string[] },
): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        id: "msg_01XFDUDYJgAACzvnptvVoYEL",
        type: "message",
        role: "assistant",
        model: ANTHROPIC_MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 472,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 100,
          output_tokens: 2,
        },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "ping" },
    ...text.map((piece) => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: piece },
    })),
    { type: "content_block_stop", index: 0 },
  ];
  if (tool) {
    events.push(
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} },
      },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
      ...tool.pieces.map((piece) => ({
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: piece },
      })),
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 89 },
    },
    { type: "message_stop" },
  );
  return events;
}

/** A non-streamed Anthropic message. */
export function anthropicMessage(
  text: string,
  tool?: { id: string; name: string; input: Record<string, unknown> },
): Record<string, unknown> {
  return {
    id: "msg_01Aq9w938a90dw8q",
    type: "message",
    role: "assistant",
    model: ANTHROPIC_MODEL,
    content: [
      { type: "text", text },
      ...(tool ? [{ type: "tool_use", id: tool.id, name: tool.name, input: tool.input }] : []),
    ],
    stop_reason: tool ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: 472,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
      output_tokens: 89,
    },
  };
}

/** An Anthropic error response, as the API sends it. */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { type: "error", error: { type, message }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" },
    { status, headers: { "request-id": "req_011CSHoEeqs5C35K2UUqR7Fy", ...headers } },
  );
}

const OPENAI_ID = "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG";

function openaiChunk(
  model: string,
  delta: Record<string, unknown>,
  finish: string | null = null,
): Record<string, unknown> {
  return {
    id: OPENAI_ID,
    object: "chat.completion.chunk",
    created: 1741570283,
    model,
    service_tier: "default",
    system_fingerprint: "fp_eb9dce56a8",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  };
}

/** OpenAI Chat Completions SSE frames: text, optionally one tool call, the finish, usage and `[DONE]`. */
export function openaiFrames(
  model: string,
  text: readonly string[],
  options: { tool?: { id: string; name: string; pieces: readonly string[] }; usage?: boolean } = {},
): string[] {
  const chunks: unknown[] = [openaiChunk(model, { role: "assistant", content: "", refusal: null })];
  for (const piece of text) chunks.push(openaiChunk(model, { content: piece }));
  if (options.tool) {
    chunks.push(
      openaiChunk(model, {
        tool_calls: [
          {
            index: 0,
            id: options.tool.id,
            type: "function",
            function: { name: options.tool.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of options.tool.pieces)
      chunks.push(openaiChunk(model, { tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  chunks.push(openaiChunk(model, {}, options.tool ? "tool_calls" : "stop"));
  if (options.usage !== false) {
    chunks.push({
      ...openaiChunk(model, {}),
      choices: [],
      usage: {
        prompt_tokens: 82,
        completion_tokens: 17,
        total_tokens: 99,
        prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    });
  }
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];
}

/** A non-streamed OpenAI chat completion. */
export function openaiCompletion(
  model: string,
  text: string | null,
  tool?: { id: string; name: string; arguments: string },
): Record<string, unknown> {
  return {
    id: OPENAI_ID,
    object: "chat.completion",
    created: 1741570283,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text,
          refusal: null,
          annotations: [],
          ...(tool
            ? {
                tool_calls: [
                  { id: tool.id, type: "function", function: { name: tool.name, arguments: tool.arguments } },
                ],
              }
            : {}),
        },
        logprobs: null,
        finish_reason: tool ? "tool_calls" : "stop",
      },
    ],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 17,
      total_tokens: 99,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    service_tier: "default",
    system_fingerprint: "fp_eb9dce56a8",
  };
}

// ---------------------------------------------------------------------------------------------------------
// The gateway's SSE, read back.

export interface SseFrame {
  event: string | undefined;
  id: string | undefined;
  data: string;
}

/** Every frame of an SSE text (`data:` lines joined with newlines). */
export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    let event: string | undefined;
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    frames.push({ event, id, data: data.join("\n") });
  }
  return frames;
}

export async function readSse(response: Response): Promise<SseFrame[]> {
  return parseSse(await response.text());
}

/** The frames' `data` as JSON (`[DONE]` stays a string). */
export function dataOf(frames: readonly SseFrame[]): unknown[] {
  return frames.map((frame) => (frame.data === "[DONE]" ? frame.data : (JSON.parse(frame.data) as unknown)));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something truthy (or fails after `timeoutMs`). */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 3000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await sleep(5);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Durable Object alarms by hand. Miniflare fires an alarm as soon as it is due, and the task object sets
// `setAlarm(Date.now())` for its next step, so a task would run to its end on its own before a test could
// act between steps. `holdAlarms` makes a task object's alarm run only through `runAlarm` (the official
// `runDurableObjectAlarm`): an alarm that fires by itself is put back an hour later, untouched.

const HELD = Symbol("held");
const MANUAL = Symbol("manual");
const PUTTING_BACK = Symbol("putting back");
type Held = { [HELD]?: boolean; [MANUAL]?: boolean; [PUTTING_BACK]?: number; alarm(): Promise<void> };

/** From now on (until the object is evicted), the object's alarm runs only through {@link runAlarm}. */
export async function holdAlarms(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (object, state) => {
    const instance = object as unknown as Held;
    if (instance[HELD]) return;
    const real = Object.getPrototypeOf(instance).alarm as () => Promise<void>;
    instance[HELD] = true;
    instance.alarm = async () => {
      // One manual run per runAlarm, taken by the first alarm invocation (runDurableObjectAlarm's).
      if (instance[MANUAL]) {
        instance[MANUAL] = false;
        return real.call(instance);
      }
      // Counted while in flight: between the alarm firing and this write, no alarm is scheduled, and
      // settleAlarm must not mistake that for "nothing to run".
      instance[PUTTING_BACK] = (instance[PUTTING_BACK] ?? 0) + 1;
      try {
        await state.storage.setAlarm(Date.now() + 3_600_000);
      } finally {
        instance[PUTTING_BACK] = (instance[PUTTING_BACK] ?? 1) - 1;
      }
    };
  });
  await settleAlarm(stub);
}

/**
 * Runs the object's scheduled alarm now with `runDurableObjectAlarm` (false when none is scheduled), then
 * waits until a next alarm it set has been put back by the hold, so nothing runs behind the test's back.
 */
export async function runAlarm(stub: DurableObjectStub): Promise<boolean> {
  await settleAlarm(stub);
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as Held)[MANUAL] = true;
  });
  const ran = await runDurableObjectAlarm(stub);
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as Held)[MANUAL] = false;
  });
  await settleAlarm(stub);
  return ran;
}

/** Waits until the object has no alarm due now (none, or one the hold put back) and none being put back. */
export async function settleAlarm(stub: DurableObjectStub): Promise<void> {
  let calm = 0;
  await waitFor(async () => {
    const settled = await runInDurableObject(stub, async (instance, state) => {
      const at = await state.storage.getAlarm();
      return (
        ((instance as unknown as Held)[PUTTING_BACK] ?? 0) === 0 && (at === null || at > Date.now() + 60_000)
      );
    });
    // Twice in a row, a few milliseconds apart: an alarm that was about to fire has fired by then.
    calm = settled ? calm + 1 : 0;
    return calm >= 2;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Tasks of the deployed Worker (its TASKS binding, through `exports.default.fetch`).

/** A call to the deployed Worker, authorised with {@link TOKEN}; `json` becomes a POST body. */
export function api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("authorization", `Bearer ${TOKEN}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  return exports.default.fetch(`http://worker.test${path}`, {
    ...rest,
    method: rest.method ?? (json === undefined ? "GET" : "POST"),
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
}

/** The task object of `id`. */
export const stubOf = (id: string) => env.TASKS.get(env.TASKS.idFromName(id));

/** POST `/v1/tasks/:id/<action>`. */
export async function control(id: string, action: "pause" | "resume" | "abort"): Promise<Response> {
  return api(`/v1/tasks/${id}/${action}`, { method: "POST" });
}

/** Replaces the object's runtime (workflows and providers) until it is evicted. */
export async function useRuntime(id: string, runtime: TaskRuntime): Promise<void> {
  await runInDurableObject(stubOf(id), (instance) => {
    (instance as unknown as { runtime: () => TaskRuntime }).runtime = () => runtime;
  });
}
