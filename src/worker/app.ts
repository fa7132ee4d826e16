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
import { CallOptionsSchema } from "../core/call-options.ts";
import { MessageSchema } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError, type ProviderErrorKind } from "../core/provider-error.ts";
import type { Response as ModelResponse } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { ValidationError, validate } from "../core/validation-error.ts";
import { VERSION } from "../index.ts";
import type { CreateProviderOptions } from "../substrate/provider-from-config.ts";
import { type AffinityPool, affinityPool } from "../substrate/session-affinity.ts";
import { gatewayTokens, isAuthorized } from "./auth.ts";
import { chatChunksOf, chatCompletionOf, chatRequestToNeutral } from "./chat-completions.ts";
import { buildRoutes, type Route } from "./config.ts";
import { demoWorkflow } from "./demo.ts";
import { SessionObject } from "./session-object.ts";
import {
  createTaskObject,
  type TaskEvent,
  type TaskResult,
  type TaskRuntime,
  type TaskState,
  type TaskWorkflow,
} from "./task-object.ts";
import { sseFrame, sseResponse } from "./write-sse.ts";

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
  sessionId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
});

const TaskRequestSchema = z.strictObject({
  workflow: z.string().check(z.minLength(1)),
  input: z.union([z.string().check(z.minLength(1)), z.array(MessageSchema).check(z.minLength(1))]),
  id: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/))),
});

/** HTTP status for a provider failure seen by a gateway client. */
function statusOf(kind: ProviderErrorKind | string): number {
  switch (kind) {
    case "bad_request":
    case "context_length":
      return 400;
    case "rate_limit":
      return 429;
    case "overloaded":
      return 503;
    case "timeout":
      return 504;
    case "not_found":
      return 404;
    case "aborted":
      return 499;
    default:
      // auth, server, network, truncated, invalid_response: the upstream failed, not the client.
      return 502;
  }
}

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
    { routes: Map<string, Route>; pools: Map<string, AffinityPool<number>> } | { error: ValidationError }
  >();
  const logged = new Set<string>();

  /** Routes of this environment, built once per env object; a bad config is reported, logged once. */
  const routesOf = (env: WorkerEnv) => {
    let entry = cache.get(env);
    if (!entry) {
      try {
        const routes = buildRoutes(options.config ?? env.MODELWIRE_CONFIG, env, options.providers);
        entry = { routes, pools: new Map() };
      } catch (error) {
        if (!ValidationError.is(error)) throw error;
        entry = { error };
        if (!logged.has(error.message)) {
          logged.add(error.message);
          log(`modelwire: invalid configuration: ${error.message}`);
        }
      }
      cache.set(env, entry);
    }
    if ("error" in entry) throw entry.error;
    return entry;
  };

  const runtimeOf = (env: unknown): TaskRuntime => ({
    workflow: (name) => (Object.hasOwn(workflows, name) ? workflows[name] : undefined),
    provider: (alias) => {
      const route = routesOf(env as WorkerEnv).routes.get(alias);
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

  app.onError((error, c) => {
    if (error instanceof HTTPConfigError) {
      return c.json({ error: { kind: "config", message: `server configuration: ${error.message}` } }, 500);
    }
    if (ValidationError.is(error)) {
      return c.json({ error: { kind: "bad_request", message: error.message, issues: error.issues } }, 400);
    }
    if (ProviderError.is(error)) return c.json({ error: error.toJSON() }, statusOf(error.kind) as 400);
    log(`modelwire: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return c.json({ error: { kind: "internal", message: "internal error" } }, 500);
  });
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
        throw new HTTPConfigError(error.message);
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
    const table = routeTable(c);
    const route = table.routes.get(alias);
    if (!route) {
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
    const sessionId = request.sessionId ?? request.options?.sessionId ?? c.req.header("x-session-id");
    const options = { ...request.options, signal: c.req.raw.signal, sessionId };
    const response = await withMember(c, request.route, sessionId, (provider) =>
      provider.complete(request.messages, request.tools, options),
    );
    return c.json(response);
  });

  app.post("/v1/stream", async (c) => {
    const request = validate(NeutralRequestSchema, await jsonBody(c));
    const abort = linkedAbort(c.req.raw.signal);
    const sessionId = request.sessionId ?? request.options?.sessionId ?? c.req.header("x-session-id");
    const options = { ...request.options, signal: abort.signal, sessionId };
    const events = await openStream(c, request.route, sessionId, (provider) =>
      provider.stream(request.messages, request.tools, options),
    );
    return sseResponse(
      (async function* () {
        for await (const event of events) {
          yield { data: event, event: event.type };
          if (event.type === "done") return;
        }
        // A provider stream that stops without `done` must not end the SSE cleanly, as if it had succeeded.
        throw new ProviderError({
          kind: "truncated",
          message: "stream ended without its final event",
          provider: "modelwire",
          model: request.route,
        });
      })(),
      { abort, context: { provider: "modelwire", model: request.route } },
    );
  });

  /**
   * Opens a stream and waits for its first event, so a failure before any output still fails over to
   * another pool member and surfaces as a plain HTTP error; after that, errors go into the SSE body.
   */
  const openStream = async (
    c: Context<{ Bindings: WorkerEnv }>,
    alias: string,
    sessionId: string | undefined,
    open: (provider: Provider) => AsyncIterable<StreamEvent>,
  ): Promise<AsyncIterable<StreamEvent>> =>
    withMember(c, alias, sessionId, async (provider) => {
      const iterator = open(provider)[Symbol.asyncIterator]();
      const first = await iterator.next();
      return (async function* () {
        if (first.done) return;
        yield first.value;
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield next.value;
        }
      })();
    });

  app.post("/v1/chat/completions", async (c) => {
    const call = chatRequestToNeutral(await jsonBody(c));
    const sessionId = call.sessionId ?? c.req.header("x-session-id");
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
    const events = await openStream(c, call.route, sessionId, (provider) =>
      provider.stream(call.messages, call.tools, { ...call.options, signal: abort.signal, sessionId }),
    );
    return sseResponse(chatChunksOf(events, call.route, id, created, call.includeUsage), {
      abort,
      context: { provider: "modelwire", model: call.route },
    });
  });

  app.get("/v1/models", (c) => {
    const table = routeTable(c);
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

  app.get("/v1/sessions/:id", async (c) =>
    c.json({ id: c.req.param("id"), pins: await sessionStub(c, c.req.param("id")).pins() }),
  );
  app.delete("/v1/sessions/:id", async (c) =>
    c.json({ id: c.req.param("id"), cleared: await sessionStub(c, c.req.param("id")).clear() }),
  );

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

  app.get("/v1/tasks/:id/events", async (c) => {
    const stub = taskStub(c, c.req.param("id"));
    const first = await stub.events(Number(c.req.header("last-event-id") ?? c.req.query("after") ?? 0) || 0);
    if (!first.ok) return taskReply(c, first);
    let after = Number(c.req.header("last-event-id") ?? c.req.query("after") ?? 0) || 0;
    const poll = Number(c.req.query("poll") ?? 250);
    let closed = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        while (!closed) {
          const page = await stub.events(after);
          if (!page.ok) {
            controller.enqueue(sseFrame(page.error, "error"));
            controller.close();
            return;
          }
          for (const event of page.value.events) {
            controller.enqueue(sseFrame(event.data, event.type, event.id));
            after = event.id;
          }
          if (page.value.events.length > 0) return;
          if (page.value.final) {
            controller.close();
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, Math.max(20, Math.min(poll, 5000))));
        }
      },
      cancel() {
        // The client went away: stop polling the task object.
        closed = true;
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  });

  const TaskObject = createTaskObject(runtimeOf);
  return { app, fetch: app.fetch, SessionObject, TaskObject };
}

/** A configuration problem: the operator's, reported as a 500 that names the field. */
export class HTTPConfigError extends Error {
  override readonly name = "HTTPConfigError";
}

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

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([{ path: "body", message: "not JSON" }]);
  }
}
