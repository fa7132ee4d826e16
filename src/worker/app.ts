/**
 * `createWorker()`: the modelwire gateway as a Hono app plus its Durable Object classes. Routes:
 *
 * - `GET /health` (no auth);
 * - `POST /v1/complete`, `POST /v1/stream` (neutral API, JSON / SSE of `StreamEvent`s);
 * - `POST /v1/chat/completions`, `GET /v1/models` (OpenAI-compatible);
 * - `GET|DELETE /v1/sessions/:id` (affinity pins);
 * - `POST /v1/tasks`, `GET /v1/tasks/:id`, `GET /v1/tasks/:id/events`, `POST /v1/tasks/:id/pause|resume|abort`.
 *
 * Every route but `/health` needs `Authorization: Bearer <token>` matching `GATEWAY_TOKENS`; with none
 * configured the gateway refuses them all. Upstream URLs come only from the server's config.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import * as z from "zod/mini";
import { CallOptionsSchema, SessionIdSchema } from "../core/call-options.ts";
import { MessageSchema } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response as ModelResponse } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { holdUntilContent } from "../core/stream-guards.ts";
import { ValidationError, validate } from "../core/validation-error.ts";
import { VERSION } from "../index.ts";
import type { CreateProviderOptions } from "../substrate/provider-from-config.ts";
import { type AffinityPool, affinityPool } from "../substrate/session-affinity.ts";
import { gatewayTokens, isAuthorized } from "./auth.ts";
import { chatChunksOf, chatCompletionOf, chatRequestToNeutral } from "./chat-completions.ts";
import { buildRoutes, type RouteTable } from "./config.ts";
import { demoWorkflow } from "./demo.ts";
import { errorResponse, HTTPConfigError } from "./gateway-error.ts";
import { SessionObject } from "./session-object.ts";
import {
  createTaskObject,
  type TaskEvent,
  type TaskResult,
  type TaskRuntime,
  type TaskState,
  type TaskWorkflow,
} from "./task-object.ts";
import { heldSseResponse, sseFrame } from "./write-sse.ts";

/** The bindings and variables the Worker reads. Secrets named by the config are read from here too. */
export interface WorkerEnv {
  /** Comma-separated bearer tokens accepted by the gateway (a secret). */
  GATEWAY_TOKENS?: string;
  /** The routes, as JSON (see README). */
  MODELWIRE_CONFIG?: string;
  SESSIONS?: DurableObjectNamespace<SessionObject>;
  TASKS?: DurableObjectNamespace;
  [name: string]: unknown;
}

/** Settings of {@link createWorker}. */
export interface CreateWorkerOptions {
  /** Workflows tasks can run, by name. A `demo` workflow is included unless you define your own. */
  workflows?: Record<string, TaskWorkflow>;
  /** Routes config; when unset, `MODELWIRE_CONFIG` from the environment. */
  config?: unknown;
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Passed to `createProvider` for every route (extra protocol factories, `fetch` for tests, …). */
  providers?: CreateProviderOptions;
  /**
   * How long a streaming response waits for the upstream's first content event before it starts anyway
   * (default 1000 ms). Until then a failure is a plain HTTP error (a 429 with `Retry-After`); after, it is the
   * stream's `event: error` frame, and comments keep the line open — workerd notices a client that left
   * only once the response has started, and then cancels the upstream call.
   */
  streamHoldMs?: number;
  /** Where configuration problems are logged (once per configuration). Default `console.error`. */
  log?: (message: string) => void;
}

type TaskStub = {
  start(input: { id: string; workflow: string; input: unknown }): Promise<TaskResult<TaskState>>;
  get(): Promise<TaskResult<TaskState>>;
  events(after: number): Promise<TaskResult<{ events: TaskEvent[]; final: boolean }>>;
  pause(): Promise<TaskResult<TaskState>>;
  resume(): Promise<TaskResult<TaskState>>;
  abort(): Promise<TaskResult<TaskState>>;
};

const NeutralRequestSchema = z.strictObject({
  route: z.string().check(z.minLength(1)),
  messages: z.array(MessageSchema).check(z.minLength(1)),
  tools: z.optional(
    z.array(
      z.strictObject({
        name: z.string(),
        description: z.optional(z.string()),
        parameters: z.optional(z.record(z.string(), z.unknown())),
        strict: z.optional(z.boolean()),
      }),
    ),
  ),
  options: z.optional(CallOptionsSchema),
  sessionId: z.optional(SessionIdSchema),
});

const TaskRequestSchema = z.strictObject({
  workflow: z.string().check(z.minLength(1)),
  input: z.union([z.string().check(z.minLength(1)), z.array(MessageSchema).check(z.minLength(1))]),
  id: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/))),
});

/**
 * Builds the gateway: the Hono app (its `fetch` is the Worker's), and the Durable Object classes to export
 * beside it.
 *
 * @example
 * ```ts
 * // src/index.ts of your Worker
 * import { createWorker } from "modelwire/worker";
 * const worker = createWorker({ workflows: { triage } });
 * export default worker.app;
 * export const { SessionObject, TaskObject } = worker;
 * ```
 */
export function createWorker(options: CreateWorkerOptions = {}) {
  const workflows: Record<string, TaskWorkflow> = { demo: demoWorkflow, ...options.workflows };
  const log = options.log ?? ((message: string) => console.error(message));
  const cache = new WeakMap<
    object,
    { table: RouteTable; pools: Map<string, AffinityPool<number>> } | { error: ValidationError }
  >();
  const logged = new Set<string>();
  /** Each distinct configuration problem is logged once, in one line listing every field to fix. */
  const logOnce = (message: string) => {
    if (logged.has(message)) return;
    logged.add(message);
    log(message);
  };

  /**
   * Routes of this environment, built once per env object. A config that cannot be read at all is
   * reported (and logged once); a route with problems is left out, the others are served.
   */
  const routesOf = (env: WorkerEnv) => {
    let entry = cache.get(env);
    if (!entry) {
      try {
        const table = buildRoutes(options.config ?? env.MODELWIRE_CONFIG, env, options.providers);
        entry = { table, pools: new Map() };
        if (table.broken.size > 0) {
          const problems = [...table.broken.values()]
            .flat()
            .map((issue) => `${issue.path}: ${issue.message}`);
          logOnce(
            `modelwire: configuration: ${table.broken.size} route(s) not served (${[...table.broken.keys()].join(", ")}): ${problems.join("; ")}`,
          );
        }
      } catch (error) {
        if (!ValidationError.is(error)) throw error;
        entry = { error };
        logOnce(
          `modelwire: invalid configuration: ${error.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
        );
      }
      cache.set(env, entry);
    }
    if ("error" in entry) throw entry.error;
    return entry;
  };

  /** Whether clients may see upstream error bodies; false when the config cannot be read. */
  const exposeUpstreamErrors = (env: WorkerEnv | undefined): boolean => {
    try {
      return env ? routesOf(env).table.exposeUpstreamErrors : false;
    } catch {
      return false;
    }
  };

  const runtimeOf = (env: unknown): TaskRuntime => ({
    workflow: (name) => (Object.hasOwn(workflows, name) ? workflows[name] : undefined),
    provider: (alias) => {
      const route = routesOf(env as WorkerEnv).table.routes.get(alias);
      if (!route)
        throw new ProviderError({
          kind: "not_found",
          message: `no route "${alias}"`,
          provider: "modelwire",
          model: alias,
        });
      return route.members[0]!;
    },
  });

  const app = new Hono<{ Bindings: WorkerEnv }>();

  app.onError((error, c) => errorResponse(error, { exposeUpstreamErrors: exposeUpstreamErrors(c.env), log }));
  app.notFound((c) =>
    c.json({ error: { kind: "not_found", message: `No route for ${c.req.method} ${c.req.path}` } }, 404),
  );

  app.get("/health", (c) => c.json({ ok: true, name: "modelwire", version: VERSION }));

  app.use("/v1/*", async (c, next) => {
    const tokens = gatewayTokens(c.env?.GATEWAY_TOKENS);
    if (tokens.length === 0) {
      return c.json(
        {
          error: {
            kind: "auth",
            message: "the gateway has no GATEWAY_TOKENS configured; every route is closed",
          },
        },
        401,
      );
    }
    if (!(await isAuthorized(c.req.header("authorization"), tokens))) {
      return c.json({ error: { kind: "auth", message: "missing or invalid bearer token" } }, 401, {
        "www-authenticate": "Bearer",
      });
    }
    await next();
  });
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 4 * 1024 * 1024,
      onError: (c) => c.json({ error: { kind: "bad_request", message: "request body too large" } }, 413),
    }),
  );

  /** A configuration problem is the server's: 500 naming the field. */
  const routeTable = (c: Context<{ Bindings: WorkerEnv }>) => {
    try {
      return routesOf(c.env);
    } catch (error) {
      if (ValidationError.is(error)) {
        throw new HTTPConfigError(
          error.issues.map((i) => `${i.path}: ${i.message}`).join("; "),
          error.issues,
        );
      }
      throw error;
    }
  };

  /**
   * Calls `attempt` with the route's member for this session: pinned in the session's Durable Object when
   * the route is a pool; on a retryable failure before any output the session fails over (re-pins) once
   * per remaining member.
   */
  const withMember = async <T>(
    c: Context<{ Bindings: WorkerEnv }>,
    alias: string,
    sessionId: string | undefined,
    attempt: (provider: Provider) => Promise<T>,
  ): Promise<T> => {
    const { table } = routeTable(c);
    const route = table.routes.get(alias);
    if (!route) {
      const problems = table.broken.get(alias);
      if (problems) {
        throw new HTTPConfigError(
          `route "${alias}" is not served: ${problems.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
          problems,
        );
      }
      throw new ValidationError([
        {
          path: "route",
          message: `no route "${alias}"; configured: ${[...table.routes.keys()].join(", ") || "none"}`,
        },
      ]);
    }
    if (route.members.length === 1) return attempt(route.members[0]!);
    const sessions = c.env?.SESSIONS;
    const key = sessionId ?? crypto.randomUUID();
    const store =
      sessionId && sessions
        ? {
            get: (_key: string) =>
              sessions.get(sessions.idFromName(sessionId)).get(alias) as Promise<string | undefined>,
            set: async (_key: string, member: string) => {
              await sessions.get(sessions.idFromName(sessionId)).set(alias, member);
            },
          }
        : undefined;
    const pool = affinityPool(
      route.members.map((_, index) => index),
      {
        weights: route.weights,
        memberId: (_member, index) => String(index),
        ...(store ? { pin: store } : {}),
      },
    );
    let member = await pool.memberFor(key);
    for (let tries = 0; ; tries++) {
      try {
        return await attempt(route.members[member]!);
      } catch (error) {
        const failure = ProviderError.is(error) ? error : undefined;
        if (!failure?.retryable || failure.partialOutput || tries >= route.members.length - 1) throw error;
        member = await pool.failover(key, member);
      }
    }
  };

  app.post("/v1/complete", async (c) => {
    const request = validate(NeutralRequestSchema, await jsonBody(c));
    // A session from the body or the header both pin the member and reach the provider (affinity token).
    const sessionId = request.sessionId ?? request.options?.sessionId ?? headerSessionId(c);
    const options = { ...request.options, signal: c.req.raw.signal, sessionId };
    const response = await withMember(c, request.route, sessionId, (provider) =>
      provider.complete(request.messages, request.tools, options),
    );
    return c.json(response);
  });

  app.post("/v1/stream", async (c) => {
    const request = validate(NeutralRequestSchema, await jsonBody(c));
    const abort = linkedAbort(c.req.raw.signal);
    const sessionId = request.sessionId ?? request.options?.sessionId ?? headerSessionId(c);
    const callOptions = { ...request.options, signal: abort.signal, sessionId };
    const frames = openStream(c, request.route, sessionId, (provider) =>
      provider.stream(request.messages, request.tools, callOptions),
    ).then(async function* (events) {
      // The stream ends with `done` or throws (see openStream): the SSE never ends cleanly without done.
      for await (const event of events) yield { data: event, event: event.type };
    });
    return heldSseResponse(frames, {
      abort,
      context: { provider: "modelwire", model: request.route },
      expose: exposeUpstreamErrors(c.env),
      holdMs: options.streamHoldMs,
    });
  });

  /**
   * Opens a stream on a member and waits for its first content event (`holdUntilContent`), so a failure
   * before any output — also one after `usage` events only — still fails over to another pool member and
   * surfaces as a plain HTTP error; after that, errors go into the SSE body with `partialOutput: true`.
   * The stream ends with `done` or throws (`requireDone`).
   */
  const openStream = async (
    c: Context<{ Bindings: WorkerEnv }>,
    alias: string,
    sessionId: string | undefined,
    open: (provider: Provider) => AsyncIterable<StreamEvent>,
  ): Promise<AsyncIterable<StreamEvent>> =>
    withMember(c, alias, sessionId, (provider) =>
      holdUntilContent(() => open(provider), { provider: provider.name, model: provider.model }),
    );

  app.post("/v1/chat/completions", async (c) => {
    const call = chatRequestToNeutral(await jsonBody(c));
    const sessionId = call.sessionId ?? headerSessionId(c);
    const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    if (!call.stream) {
      const response: ModelResponse = await withMember(c, call.route, sessionId, (provider) =>
        provider.complete(call.messages, call.tools, {
          ...call.options,
          signal: c.req.raw.signal,
          sessionId,
        }),
      );
      return c.json(chatCompletionOf(response, call.route, id, created));
    }
    const abort = linkedAbort(c.req.raw.signal);
    const frames = openStream(c, call.route, sessionId, (provider) =>
      provider.stream(call.messages, call.tools, { ...call.options, signal: abort.signal, sessionId }),
    ).then((events) => chatChunksOf(events, call.route, id, created, call.includeUsage));
    return heldSseResponse(frames, {
      abort,
      context: { provider: "modelwire", model: call.route },
      expose: exposeUpstreamErrors(c.env),
      holdMs: options.streamHoldMs,
    });
  });

  app.get("/v1/models", (c) => {
    // Only the routes that are served: a route with a configuration problem is not a model to call.
    const { table } = routeTable(c);
    return c.json({
      object: "list",
      data: [...table.routes.keys()].map((alias) => ({
        id: alias,
        object: "model",
        created: 0,
        owned_by: "modelwire",
      })),
    });
  });

  const sessionStub = (c: Context<{ Bindings: WorkerEnv }>, id: string) => {
    const sessions = c.env?.SESSIONS;
    if (!sessions) throw new HTTPConfigError("the SESSIONS Durable Object binding is missing");
    return sessions.get(sessions.idFromName(id));
  };

  // A session exists once a pool route has pinned it; reading or clearing one that does not is a 404 and
  // writes nothing.
  app.get("/v1/sessions/:id", async (c) => {
    const id = validate(SessionIdSchema, c.req.param("id"), "id");
    const pins = await sessionStub(c, id).pins();
    if (pins === undefined)
      return c.json({ error: { kind: "not_found", message: `no session "${id}"` } }, 404);
    return c.json({ id, pins });
  });
  app.delete("/v1/sessions/:id", async (c) => {
    const id = validate(SessionIdSchema, c.req.param("id"), "id");
    const cleared = await sessionStub(c, id).clear();
    if (cleared === undefined)
      return c.json({ error: { kind: "not_found", message: `no session "${id}"` } }, 404);
    return c.json({ id, cleared });
  });

  const taskStub = (c: Context<{ Bindings: WorkerEnv }>, id: string): TaskStub => {
    const tasks = c.env?.TASKS;
    if (!tasks) throw new HTTPConfigError("the TASKS Durable Object binding is missing");
    return tasks.get(tasks.idFromName(id)) as unknown as TaskStub;
  };
  const taskReply = (c: Context, result: TaskResult<unknown>, status = 200) =>
    result.ok ? c.json(result.value, status as 200) : c.json({ error: result.error }, result.status as 404);

  app.post("/v1/tasks", async (c) => {
    const request = validate(TaskRequestSchema, await jsonBody(c));
    if (!Object.hasOwn(workflows, request.workflow)) {
      throw new ValidationError([
        {
          path: "workflow",
          message: `no workflow "${request.workflow}"; known: ${Object.keys(workflows).join(", ")}`,
        },
      ]);
    }
    const id = request.id ?? crypto.randomUUID();
    return taskReply(
      c,
      await taskStub(c, id).start({ id, workflow: request.workflow, input: request.input }),
      201,
    );
  });
  app.get("/v1/tasks/:id", async (c) => taskReply(c, await taskStub(c, c.req.param("id")).get()));
  app.post("/v1/tasks/:id/pause", async (c) => taskReply(c, await taskStub(c, c.req.param("id")).pause()));
  app.post("/v1/tasks/:id/resume", async (c) => taskReply(c, await taskStub(c, c.req.param("id")).resume()));
  app.post("/v1/tasks/:id/abort", async (c) => taskReply(c, await taskStub(c, c.req.param("id")).abort()));

  /**
   * The task's progress as SSE, from after `Last-Event-ID` (or `?after=`), live until the task is final.
   * `?poll=` is how often an idle task is asked again, in ms (20–5000, default 250); an idle stream backs
   * off up to 5 s and sends a comment every 15 s. It stops as soon as the client is gone (the request's
   * signal) and after {@link EVENT_STREAM_MAX_MS} at most: the client reconnects with `Last-Event-ID`.
   */
  app.get("/v1/tasks/:id/events", async (c) => {
    const after0 = integerParam(
      c.req.header("last-event-id") ?? c.req.query("after"),
      "last-event-id",
      0,
      Number.MAX_SAFE_INTEGER,
      0,
    );
    const poll = integerParam(c.req.query("poll"), "poll", 20, 5000, 250);
    const stub = taskStub(c, c.req.param("id"));
    const first = await stub.events(after0);
    if (!first.ok) return taskReply(c, first);
    const stop = linkedAbort(c.req.raw.signal);
    const started = Date.now();
    let after = after0;
    let page: TaskResult<{ events: TaskEvent[]; final: boolean }> | undefined = first;
    let idle = poll;
    let quietSince = Date.now();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        while (!stop.signal.aborted) {
          page ??= await stub.events(after);
          const current = page;
          page = undefined;
          if (!current.ok) {
            controller.enqueue(sseFrame(current.error, "error"));
            controller.close();
            return;
          }
          for (const event of current.value.events) {
            controller.enqueue(sseFrame(event.data, event.type, event.id));
            after = event.id;
          }
          if (current.value.events.length > 0) {
            idle = poll;
            quietSince = Date.now();
            return;
          }
          if (current.value.final || Date.now() - started > EVENT_STREAM_MAX_MS) {
            controller.close();
            return;
          }
          if (Date.now() - quietSince >= KEEPALIVE_MS) {
            quietSince = Date.now();
            controller.enqueue(KEEPALIVE);
            return;
          }
          await sleep(idle, stop.signal);
          idle = Math.min(idle * 2, 5000);
        }
        controller.close();
      },
      cancel(reason) {
        // The client went away: stop asking the task object.
        stop.abort(reason);
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  });

  const TaskObject = createTaskObject(runtimeOf);
  return { app, fetch: app.fetch, SessionObject, TaskObject };
}

export { HTTPConfigError };

/**
 * An abort controller for the upstream call that also fires when the client goes away (the request's
 * signal, with the `enable_request_signal` compatibility flag) — before the first event as well as after.
 */
function linkedAbort(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

/** Longest life of one task event stream; the client reconnects with `Last-Event-ID`. */
const EVENT_STREAM_MAX_MS = 15 * 60_000;
/** How long an idle event stream waits before a keep-alive comment. */
const KEEPALIVE_MS = 15_000;
const KEEPALIVE = new TextEncoder().encode(": keep-alive\n\n");

/** Deepest nesting of arrays and objects accepted in a request body (tool arguments included). */
export const MAX_JSON_DEPTH = 64;

/** The request body as JSON: a 400 naming `body` when it is not JSON or is nested deeper than {@link MAX_JSON_DEPTH}. */
async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError([{ path: "body", message: "not JSON" }]);
  }
  const deep = tooDeep(value, MAX_JSON_DEPTH);
  if (deep !== undefined) {
    throw new ValidationError([
      { path: deep || "body", message: `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` },
    ]);
  }
  return value;
}

/**
 * The path of the first value nested deeper than `limit`, or undefined. Iterative: a hostile body must not
 * overflow the stack of the check meant to stop it.
 */
function tooDeep(value: unknown, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: "" }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= limit) return item.path;
    if (Array.isArray(item.value)) {
      item.value.forEach((child, index) => {
        stack.push({ value: child, depth: item.depth + 1, path: `${item.path}[${index}]` });
      });
    } else {
      for (const [key, child] of Object.entries(item.value)) {
        stack.push({ value: child, depth: item.depth + 1, path: item.path ? `${item.path}.${key}` : key });
      }
    }
  }
  return undefined;
}

/** The `x-session-id` header, validated like a body's `sessionId` (a 400 naming the header otherwise). */
function headerSessionId(c: Context): string | undefined {
  const value = c.req.header("x-session-id");
  return value === undefined ? undefined : validate(SessionIdSchema, value, "x-session-id");
}

/** A non-negative integer from a query parameter or header, or a 400 naming it. */
function integerParam(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || value === "") return fallback;
  const number = /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new ValidationError([{ path: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return number;
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
