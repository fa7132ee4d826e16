/**
 * The gateway under attack and fault, one `describe` per case of the review that attacked it (each case
 * reproduced a failure of the gateway before it was fixed): event streams that cannot freeze it, steps
 * that never run twice, keys that never reach a client, an honest `Retry-After`, upstream deadlines, bad
 * input named instead of a 500, one bad route that takes down nothing else, and reads that store nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../src/agent/workflow.ts";
import type { Provider } from "../../src/core/provider.ts";
import { ProviderError } from "../../src/core/provider-error.ts";
import { createWorker } from "../../src/worker/app.ts";
import { demoProvider } from "../../src/worker/demo.ts";
import type { TaskEvent, TaskState } from "../../src/worker/task-object.ts";
import {
  api,
  control,
  gateway,
  gatewayEnv,
  holdAlarms,
  OPENAI_BASE,
  OPENAI_KEY,
  openaiCompletion,
  openaiFrames,
  readSse,
  runAlarm,
  sseResponse,
  streamBody,
  stubOf,
  TOKEN,
  type UpstreamCall,
  useRuntime,
  waitFor,
} from "./helpers.ts";

const MESSAGES = [{ role: "user", content: "hi" }];

async function startTask(id: string, workflow = "demo"): Promise<TaskState> {
  const response = await api("/v1/tasks", { json: { workflow, input: `task ${id}`, id } });
  expect(response.status).toBe(201);
  return (await response.json()) as TaskState;
}

async function taskState(id: string): Promise<TaskState> {
  const response = await api(`/v1/tasks/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TaskState;
}

/** Every event the task logged so far (read from the object: the SSE route stays open on a live task). */
async function taskEvents(id: string): Promise<TaskEvent[]> {
  const stub = stubOf(id) as unknown as {
    events(after: number): Promise<{ ok: true; value: { events: TaskEvent[] } }>;
  };
  return (await stub.events(0)).value.events;
}

/**
 * A provider whose calls wait at a gate the test opens, and that records every call and its signal. The
 * gate is polled with timers inside the object (a promise resolved from the test's context would run the
 * object's continuation in the wrong I/O context).
 */
function gatedProvider(answer: Provider = demoProvider()) {
  const state = { open: false, calls: 0, signals: [] as (AbortSignal | undefined)[] };
  const provider: Provider = {
    ...answer,
    async *stream(messages, tools, options) {
      state.calls++;
      state.signals.push(options?.signal);
      while (!state.open && !options?.signal?.aborted) await new Promise((resolve) => setTimeout(resolve, 2));
      yield* answer.stream(messages, tools, options);
    },
  };
  return { provider, state };
}

describe("1. task event streams cannot freeze the gateway", () => {
  it("1. ?poll=abc and other unreadable numbers are a 400 naming the parameter, not a spinning loop", async () => {
    const id = "attack-poll";
    await holdAlarms(stubOf(id));
    await startTask(id);
    for (const [query, headers, field] of [
      ["?poll=abc", {}, "poll"],
      ["?poll=0", {}, "poll"],
      ["?poll=99999999", {}, "poll"],
      ["?poll=1e3", {}, "poll"],
      ["", { "last-event-id": "x" }, "last-event-id"],
      ["?after=-1", {}, "last-event-id"],
    ] as const) {
      const response = await api(`/v1/tasks/${id}/events${query}`, { headers });
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({
        error: {
          kind: "bad_request",
          issues: [{ path: field, message: expect.stringContaining("integer") }],
        },
      });
    }
    // The gateway still answers.
    expect((await api("/health")).status).toBe(200);
  });

  it("1. an abandoned stream on an idle task stops asking the task object once the client is gone", async () => {
    const id = "attack-abandon";
    await holdAlarms(stubOf(id));
    await startTask(id);
    expect((await control(id, "pause")).status).toBe(200);
    // Count the gateway's calls to the task object.
    let polls = 0;
    const counting = {
      idFromName: (name: string) => env.TASKS.idFromName(name),
      get: (objectId: DurableObjectId) => {
        const stub = env.TASKS.get(objectId) as unknown as { events(after: number): Promise<unknown> };
        return new Proxy(stub, {
          get: (target, key) =>
            key === "events"
              ? (after: number) => {
                  polls++;
                  return target.events(after);
                }
              : Reflect.get(target, key),
        });
      },
    } as unknown as typeof env.TASKS;
    const { call } = gateway(() => new Response("unused"));
    const client = new AbortController();
    // The client disconnects: workerd aborts the request's signal (enable_request_signal); it does not
    // cancel a body that has nothing to send.
    const response = await call(
      `/v1/tasks/${id}/events?poll=20`,
      { signal: client.signal },
      {
        ...gatewayEnv,
        TASKS: counting,
      },
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: status");
    // The runtime keeps draining the body into the closed connection, as workerd does.
    const drained = (async () => {
      try {
        while (!(await reader.read()).done) {
          /* drain */
        }
      } catch {
        /* a cancelled body is fine too */
      }
    })();
    client.abort();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const after = polls;
    await new Promise((resolve) => setTimeout(resolve, 400));
    // At 20 ms per poll (backing off to 5 s), a stream that kept going would have asked again by now.
    expect(polls - after).toBeLessThanOrEqual(1);
    // And the body ended: nothing is left running for a client that is gone.
    await drained;
  });
});

describe("2. a finished step is final: pause, resume and abort around it never run it twice", () => {
  const oneShot: Workflow = { route: "demo", system: "no tools", maxSteps: 4 };

  it("2. paused during the task's last model call, then resumed: one call, one answer, done", async () => {
    const id = "attack-pause-last";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const gate = gatedProvider();
    await useRuntime(id, { workflow: () => oneShot, provider: () => gate.provider });
    await startTask(id);
    const step = runAlarm(stub);
    await waitFor(() => gate.state.calls === 1);
    expect((await control(id, "pause")).status).toBe(200);
    gate.state.open = true;
    await step;
    // The step finished the task: there is no boundary left to pause at, and nothing to run again.
    const resumed = await control(id, "resume");
    expect(resumed.status).toBe(409);
    expect(await resumed.json()).toMatchObject({
      error: { kind: "conflict", message: expect.stringContaining("done") },
    });
    while (await runAlarm(stub)) {
      /* whatever is scheduled runs; nothing must call the model again */
    }
    const state = await taskState(id);
    expect(gate.state.calls).toBe(1);
    expect(state).toMatchObject({ status: "done", steps: 1 });
    expect(state.history.filter((message) => message.role === "assistant")).toHaveLength(1);
  });

  it("2. each status change is logged once: no duplicate paused event after a pause during a step", async () => {
    const id = "attack-pause-dup";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const gate = gatedProvider();
    await useRuntime(id, {
      workflow: () => ({
        ...oneShot,
        tools: [{ name: "shout", parameters: { type: "object" }, execute: () => "OK" }],
      }),
      provider: () => gate.provider,
    });
    await startTask(id);
    const step = runAlarm(stub);
    await waitFor(() => gate.state.calls === 1);
    expect((await control(id, "pause")).status).toBe(200);
    gate.state.open = true;
    await step;
    const state = await taskState(id);
    // The model call that was in flight is kept (it asked for a tool); the tool batch waits for resume.
    expect(state).toMatchObject({ status: "paused", steps: 1 });
    const statuses = (await taskEvents(id))
      .filter((event) => event.type === "status")
      .map((event) => event.data);
    expect(statuses).toEqual([{ status: "running" }, { status: "paused" }]);
  });

  it("2. an abort during the first model call cancels it and keeps nothing: no step event, no usage", async () => {
    const id = "attack-abort-first";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const gate = gatedProvider();
    await useRuntime(id, { workflow: () => oneShot, provider: () => gate.provider });
    const started = await startTask(id);
    const step = runAlarm(stub);
    await waitFor(() => gate.state.calls === 1);
    expect((await control(id, "abort")).status).toBe(200);
    await step;
    expect(gate.state.signals[0]?.aborted).toBe(true);
    const state = await taskState(id);
    expect(state).toMatchObject({ status: "aborted", steps: 0, usage: {} });
    expect(state.history).toEqual(started.history);
    const events = await taskEvents(id);
    expect(events.filter((event) => event.type === "step")).toEqual([]);
    expect(events.filter((event) => event.type === "status").map((event) => event.data)).toEqual([
      { status: "running" },
      { status: "aborted" },
    ]);
  });
});

describe("3. the upstream key never reaches a client", () => {
  /** An OpenAI-shaped 401 that echoes the key everywhere an upstream (or a proxy in front of it) might. */
  const echoing =
    (body: string, headers: Record<string, string> = {}) =>
    () =>
      new Response(body, { status: 401, headers: { "content-type": "application/json", ...headers } });

  const escapes = [
    OPENAI_KEY,
    JSON.stringify(OPENAI_KEY).slice(1, -1),
    [...OPENAI_KEY].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    encodeURIComponent(OPENAI_KEY),
  ];

  function expectNoKey(text: string, key = OPENAI_KEY) {
    expect(text).not.toContain(key);
    // No long run of the key either: 12 characters of it are enough to call it leaked.
    for (let start = 0; start + 12 <= key.length; start++)
      expect(text).not.toContain(key.slice(start, start + 12));
    expect(text).not.toMatch(/\\u0073\\u006b/i);
  }

  it("3. code, type, request id, escaped and cut copies: none reaches the client, in any encoding", async () => {
    const bodies = [
      JSON.stringify({ error: { message: "bad key", type: OPENAI_KEY, code: OPENAI_KEY } }),
      `{"error":{"message":"Incorrect API key provided: ${escapes[2]}","type":"invalid_request_error"}}`,
      `{"error":{"message":"key=${escapes[3]}","code":"${OPENAI_KEY.slice(0, 20)}"}}`,
      // The key straddles the point where the kept body is cut.
      JSON.stringify({ error: { message: "x".repeat(8170) + OPENAI_KEY } }),
    ];
    for (const body of bodies) {
      const { call } = gateway(echoing(body, { "x-request-id": `req_${OPENAI_KEY}` }));
      for (const path of ["/v1/complete", "/v1/stream", "/v1/chat/completions"]) {
        const json =
          path === "/v1/chat/completions"
            ? { model: "gpt", messages: MESSAGES }
            : { route: "gpt", messages: MESSAGES };
        const response = await call(path, { json });
        expect(response.status, path).toBe(502);
        const text = await response.text();
        expectNoKey(text);
        const error = (JSON.parse(text) as { error: Record<string, unknown> }).error;
        // Gateway clients do not get the upstream's raw body unless the operator opts in.
        expect(error).not.toHaveProperty("upstreamBody");
      }
    }
  });

  it("3. with exposeUpstreamErrors the body is passed on, scrubbed of every copy of the key", async () => {
    const body = `{"error":{"message":"Incorrect API key provided: ${escapes[1]} / ${escapes[2]}"}}`;
    const { call } = gateway(echoing(body), {
      config: {
        exposeUpstreamErrors: true,
        routes: {
          gpt: {
            protocol: "openai-chat",
            model: "gpt-4o",
            baseURL: OPENAI_BASE,
            apiKeySecret: "OPENAI_API_KEY",
          },
        },
      },
    });
    const response = await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES } });
    const text = await response.text();
    expectNoKey(text);
    const error = (JSON.parse(text) as { error: { upstreamBody: string } }).error;
    expect(error.upstreamBody).toContain("Incorrect API key provided: [redacted] / [redacted]");
  });

  it("3. a key shorter than six characters is redacted too", async () => {
    const shortKey = "k9x2";
    const { call } = gateway(
      echoing(JSON.stringify({ error: { message: `invalid key ${shortKey}`, code: shortKey } })),
      {
        config: {
          exposeUpstreamErrors: true,
          routes: {
            gpt: {
              protocol: "openai-chat",
              model: "gpt-4o",
              baseURL: OPENAI_BASE,
              apiKeySecret: "SHORT_KEY",
            },
          },
        },
      },
    );
    const response = await call(
      "/v1/complete",
      { json: { route: "gpt", messages: MESSAGES } },
      {
        ...gatewayEnv,
        SHORT_KEY: shortKey,
      },
    );
    const text = await response.text();
    expect(text).not.toContain(shortKey);
    expect(text).toContain("invalid key [redacted]");
  });

  it("3. a config error never echoes the user:password of a base URL", async () => {
    const logs: string[] = [];
    const { call } = gateway(() => new Response("unused"), {
      config: {
        routes: {
          broken: {
            protocol: "openai-chat",
            endpoint: "vllm",
            model: "m",
            baseURL: "http://admin:hunter22@bad host/v1",
          },
        },
      },
      log: (line) => logs.push(line),
    });
    const response = await call("/v1/complete", { json: { route: "broken", messages: MESSAGES } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain("routes.broken.baseURL");
    expect(text).not.toContain("hunter22");
    expect(logs.join("\n")).not.toContain("hunter22");
  });
});

describe("4. Retry-After is sent, and capped", () => {
  const limited =
    (headers: Record<string, string>, status = 429) =>
    () =>
      Response.json(
        { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } },
        { status, headers },
      );

  it("4. a 429 carries Retry-After and retry-after-ms besides the JSON field", async () => {
    const { call } = gateway(limited({ "retry-after": "7" }));
    for (const [path, json] of [
      ["/v1/complete", { route: "gpt", messages: MESSAGES }],
      ["/v1/chat/completions", { model: "gpt", messages: MESSAGES }],
      ["/v1/stream", { route: "gpt", messages: MESSAGES }],
    ] as const) {
      const response = await call(path, { json });
      expect(response.status, path).toBe(429);
      expect(response.headers.get("retry-after"), path).toBe("7");
      expect(response.headers.get("retry-after-ms"), path).toBe("7000");
      // The wait is in the body too: modelwire's `retryAfterMs`; OpenAI's shape has no such field.
      expect(await response.json()).toMatchObject(
        path === "/v1/chat/completions"
          ? { error: { type: "requests", code: "rate_limit_exceeded", param: null } }
          : { error: { kind: "rate_limit", retryAfterMs: 7000 } },
      );
    }
  });

  it("4. an overloaded upstream (Anthropic 529) is a 503 that does the same; a date years ahead is capped at an hour", async () => {
    const { call } = gateway(() =>
      Response.json(
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        { status: 529, headers: { "retry-after": "Fri, 01 Jan 2037 00:00:00 GMT" } },
      ),
    );
    const response = await call("/v1/complete", { json: { route: "claude", messages: MESSAGES } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("3600");
    expect(await response.json()).toMatchObject({ error: { kind: "overloaded", retryAfterMs: 3_600_000 } });
  });

  it("4. the official openai client reads the header: it waits what the gateway says before retrying", async () => {
    const { worker, calls } = gateway(limited({ "retry-after-ms": "20" }));
    const waits: number[] = [];
    const client = new OpenAI({
      apiKey: TOKEN,
      baseURL: "http://gateway.test/v1",
      maxRetries: 1,
      fetch: (async (url: RequestInfo | URL, init?: RequestInit) => {
        const response = await worker.app.fetch(new Request(url, init), gatewayEnv);
        waits.push(Number(response.headers.get("retry-after-ms")));
        return response;
      }) as typeof fetch,
    });
    const error = await client.chat.completions
      .create({ model: "gpt", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(calls).toHaveLength(2);
    expect(waits).toEqual([20, 20]);
  });
});

describe("5. upstream deadlines: a hanging upstream is a timeout, and its connection is closed", () => {
  const route = (timeouts: Record<string, number>) => ({
    config: {
      routes: {
        gpt: {
          protocol: "openai-chat",
          model: "gpt-4o",
          baseURL: OPENAI_BASE,
          apiKeySecret: "OPENAI_API_KEY",
          timeouts,
        },
      },
    },
  });
  /** An upstream that never answers: its response waits until the request is aborted. */
  const hang = (upstream: UpstreamCall) =>
    new Promise<Response>((_resolve, reject) => {
      upstream.signal?.addEventListener("abort", () => reject(upstream.signal?.reason), { once: true });
    });

  it("5. no response headers within timeouts.firstByteMs: 504 timeout, the upstream request aborted", async () => {
    const { call, calls } = gateway(hang, route({ firstByteMs: 30 }));
    const response = await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES } });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({
      error: { kind: "timeout", retryable: true, message: expect.stringContaining("timeouts.firstByteMs") },
    });
    expect(calls[0]!.signal?.aborted).toBe(true);
  });

  it("5. a stream that goes quiet for timeouts.idleMs ends with a timeout error frame, the upstream aborted", async () => {
    let cancelled = false;
    const { call, calls } = gateway(
      (upstream) =>
        sseResponse(
          streamBody(openaiFrames("gpt-4o", ["Hel"]).slice(0, 2), {
            end: "hang",
            signal: upstream.signal,
            onCancel: () => {
              cancelled = true;
            },
          }),
        ),
      route({ idleMs: 40 }),
    );
    const response = await call("/v1/stream", { json: { route: "gpt", messages: MESSAGES } });
    expect(response.status).toBe(200);
    const frames = await readSse(response);
    expect(frames.at(-1)).toMatchObject({ event: "error" });
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({
      kind: "timeout",
      message: expect.stringContaining("timeouts.idleMs"),
    });
    expect(calls[0]!.signal?.aborted || cancelled).toBe(true);
  });

  it("5. a stream slow to open answers after streamHoldMs with a comment, then its events; a failure then is an error frame", async () => {
    const slow = (fail: boolean) => async () => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      if (fail)
        return Response.json(
          { error: { message: "slow down", code: "rate_limit_exceeded" } },
          { status: 429 },
        );
      return sseResponse(streamBody(openaiFrames("gpt-4o", ["Hel", "lo"])));
    };
    const ok = gateway(slow(false), { streamHoldMs: 10 });
    const response = await ok.call("/v1/stream", { json: { route: "gpt", messages: MESSAGES } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith(": waiting for the upstream\n\n")).toBe(true);
    expect(text).toContain('"text":"Hel"');
    expect(text).toMatch(/event: done/);
    const failing = gateway(slow(true), { streamHoldMs: 10 });
    const late = await failing.call("/v1/chat/completions", {
      json: { model: "gpt", stream: true, messages: MESSAGES },
    });
    expect(late.status).toBe(200);
    const frames = await readSse(late);
    // The chat route's error frame: OpenAI's shape, with no event name.
    expect(frames.at(-1)!.event).toBeUndefined();
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({
      error: { type: "requests", code: "rate_limit_exceeded", message: expect.stringContaining("slow down") },
    });
    // Within the hold, the same failure is the HTTP error it always was.
    const quick = gateway(slow(true), { streamHoldMs: 5000 });
    expect((await quick.call("/v1/stream", { json: { route: "gpt", messages: MESSAGES } })).status).toBe(429);
  });

  it("5. a client that leaves a held stream is noticed once the response starts: the upstream call is cancelled", async () => {
    const { call, calls } = gateway(hang, { streamHoldMs: 10 });
    const client = new AbortController();
    const response = await call("/v1/stream", {
      json: { route: "gpt", messages: MESSAGES },
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": waiting for the upstream");
    client.abort();
    await waitFor(() => calls[0]?.signal?.aborted === true);
    await reader.cancel().catch(() => undefined);
  });

  it("5. a client that leaves before the first byte cancels the upstream call", async () => {
    const { call, calls } = gateway(hang);
    const client = new AbortController();
    const pending = Promise.resolve(
      call("/v1/complete", { json: { route: "gpt", messages: MESSAGES }, signal: client.signal }),
    );
    await waitFor(() => calls.length === 1);
    client.abort();
    await pending.catch(() => undefined);
    await waitFor(() => calls[0]!.signal?.aborted === true);
  });
});

describe("6. bad input is named, never a 500, and bounded before it goes upstream", () => {
  async function issues(response: Response): Promise<{ path: string; message: string }[]> {
    expect(response.status).toBe(400);
    return ((await response.json()) as { error: { issues: { path: string; message: string }[] } }).error
      .issues;
  }

  it('6. an unknown field is named: `unknown field "foo"`, top-level and in options', async () => {
    const { call, calls } = gateway(() => Response.json(openaiCompletion("gpt-4o", "x")));
    expect(
      await issues(await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES, foo: 1 } })),
    ).toEqual([{ path: "foo", message: 'unknown field "foo"' }]);
    expect(
      await issues(
        await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES, options: { bogus: 1 } } }),
      ),
    ).toEqual([{ path: "options.bogus", message: 'unknown field "bogus"' }]);
    expect(calls).toHaveLength(0);
  });

  it("6. tool-call arguments nested 5,000 levels deep are a 400 naming the depth, not a stack overflow", async () => {
    const { call, calls } = gateway(() => Response.json(openaiCompletion("gpt-4o", "x")));
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"route":"gpt","messages":[{"role":"assistant","toolCalls":[{"id":"a","name":"t","arguments":{"x":${deep}}}]}]}`;
    const response = await call("/v1/complete", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    const [issue] = await issues(response);
    expect(issue!.message).toContain("nested deeper than 64 levels");
    expect(issue!.path).toMatch(/^messages\[0\]\.toolCalls\[0\]\.arguments\.x/);
    expect(calls).toHaveLength(0);
  });

  it("6. absurd sizes are refused before the upstream sees them, each field named", async () => {
    const { call, calls } = gateway(() => Response.json(openaiCompletion("gpt-4o", "x")));
    const neutral = (options: Record<string, unknown>) =>
      call("/v1/complete", { json: { route: "gpt", messages: MESSAGES, options } });
    expect((await issues(await neutral({ maxTokens: 9007199254740991 })))[0]).toMatchObject({
      path: "options.maxTokens",
    });
    expect((await issues(await neutral({ stopSequences: Array(10_000).fill("x") })))[0]).toMatchObject({
      path: "options.stopSequences",
    });
    expect((await issues(await neutral({ sessionId: "s".repeat(200_000) })))[0]).toMatchObject({
      path: "options.sessionId",
    });
    const chat = (json: Record<string, unknown>) =>
      call("/v1/chat/completions", { json: { model: "gpt", messages: MESSAGES, ...json } });
    expect((await issues(await chat({ max_tokens: 9007199254740991 })))[0]).toMatchObject({
      path: "max_tokens",
    });
    expect((await issues(await chat({ stop: Array(10_000).fill("x") })))[0]).toMatchObject({ path: "stop" });
    const header = await call("/v1/complete", {
      json: { route: "gpt", messages: MESSAGES },
      headers: { "x-session-id": "h".repeat(60_000) },
    });
    expect((await issues(header))[0]).toMatchObject({ path: "x-session-id" });
    expect(calls).toHaveLength(0);
  });

  it("6. a session id with CR, LF or NUL is a 400, never a retryable 502 from a bad header value", async () => {
    const { call, calls } = gateway(() => Response.json(openaiCompletion("gpt-4o", "x")));
    for (const sessionId of ["a\r\nx-injected: 1", "nul\u0000", " padded "]) {
      const [issue] = await issues(
        await call("/v1/complete", { json: { route: "pool", messages: MESSAGES, sessionId } }),
      );
      expect(issue).toMatchObject({ path: "sessionId" });
    }
    expect(calls).toHaveLength(0);
  });

  it("6. a runtime that denies network access (Deno without --allow-net) is not retryable", async () => {
    const worker = createWorker({
      config: {
        routes: {
          gpt: {
            protocol: "openai-chat",
            model: "gpt-4o",
            baseURL: OPENAI_BASE,
            apiKeySecret: "OPENAI_API_KEY",
          },
        },
      },
      providers: {
        fetch: (async () => {
          const denied = new Error(
            'Requires net access to "openai.upstream.test:443", run again with the --allow-net flag',
          );
          denied.name = "NotCapable";
          throw denied;
        }) as typeof fetch,
      },
    });
    const response = await worker.app.fetch(
      new Request("http://gateway.test/v1/complete", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ route: "gpt", messages: MESSAGES }),
      }),
      gatewayEnv,
    );
    expect(await response.json()).toMatchObject({
      error: { kind: "network", retryable: false, message: expect.stringContaining("--allow-net") },
    });
  });
});

describe("7. one bad route takes down nothing else, and says how to fix it", () => {
  it("7. every problem in one log line and one error body; healthy routes served; /v1/models lists only those", async () => {
    const logs: string[] = [];
    const { call } = gateway(() => Response.json(openaiCompletion("gpt-4o", "fine")), {
      config: {
        routes: {
          gpt: {
            protocol: "openai-chat",
            model: "gpt-4o",
            baseURL: OPENAI_BASE,
            apiKeySecret: "OPENAI_API_KEY",
          },
          nokey: { protocol: "anthropic", model: "claude-sonnet-4-5", apiKeySecret: "MISSING_SECRET" },
          typo: { protocol: "openai-chat", model: "m", basURL: "http://x" },
          demo: { demo: true },
        },
      },
      log: (line) => logs.push(line),
    });
    expect((await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES } })).status).toBe(200);
    expect((await call("/v1/complete", { json: { route: "demo", messages: MESSAGES } })).status).toBe(200);
    const models = (await (await call("/v1/models")).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(["gpt", "demo"]);
    const broken = await call("/v1/complete", { json: { route: "nokey", messages: MESSAGES } });
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({
      error: {
        kind: "config",
        issues: [{ path: "routes.nokey.apiKeySecret", message: expect.stringContaining("MISSING_SECRET") }],
      },
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain("routes.nokey.apiKeySecret");
    expect(logs[0]).toContain("routes.typo.basURL");
  });

  it("7. an openai-chat route to a key-less server is told about apiKeySecret and endpoint, not the hosted API", async () => {
    const { call } = gateway(() => new Response("unused"), {
      config: {
        routes: {
          local: { protocol: "openai-chat", model: "llama3.2", baseURL: "http://127.0.0.1:11434/v1" },
        },
      },
    });
    const response = await call("/v1/complete", { json: { route: "local", messages: MESSAGES } });
    const [issue] = ((await response.json()) as { error: { issues: { path: string; message: string }[] } })
      .error.issues;
    expect(issue!.path).toBe("routes.local.apiKeySecret");
    expect(issue!.message).toContain('endpoint to "generic"');
    expect(issue!.message).toContain("apiKeySecret");
    expect(issue!.message).not.toContain("hosted OpenAI API");
  });
});

describe("8. reads create no storage", () => {
  it("8. GETs of unknown sessions and tasks are 404s that leave their objects empty", async () => {
    for (const id of ["never-seen-1", "never-seen-2"]) {
      const session = await api(`/v1/sessions/${id}`);
      expect(session.status).toBe(404);
      expect((await api(`/v1/sessions/${id}`, { method: "DELETE" })).status).toBe(404);
      for (const path of ["", "/events"]) expect((await api(`/v1/tasks/${id}${path}`)).status).toBe(404);
      for (const namespace of [env.SESSIONS, env.TASKS]) {
        const tables = await runInDurableObject(namespace.get(namespace.idFromName(id)), (_instance, state) =>
          state.storage.sql.exec("SELECT name FROM sqlite_master").toArray(),
        );
        expect(tables).toEqual([]);
      }
    }
  });
});

// A task that is created does write: the check above is not passing because nothing ever writes.
describe("8. (control) a created task does store its state", () => {
  it("8. a started task has tables", async () => {
    await holdAlarms(stubOf("stored-task"));
    await startTask("stored-task");
    const tables = await runInDurableObject(stubOf("stored-task"), (_instance, state) =>
      state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((row) => row.name),
    );
    expect(tables).toEqual(expect.arrayContaining(["task", "messages", "events"]));
  });
});

// Kept so the error module is exercised with a real ProviderError instance, not only through routes.
describe("gateway errors", () => {
  it("a ProviderError's JSON for a client drops upstreamBody unless exposed", async () => {
    const { clientErrorJSON } = await import("../../src/worker/gateway-error.ts");
    const error = new ProviderError({
      kind: "server",
      message: "m",
      provider: "p",
      model: "x",
      upstreamBody: "raw",
    });
    expect(clientErrorJSON(error)).not.toHaveProperty("upstreamBody");
    expect(clientErrorJSON(error, true)).toMatchObject({ upstreamBody: "raw" });
  });
});
