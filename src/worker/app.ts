/**
 * `createWorker()`: the modelwire gateway as a Hono app plus its Durable Object classes. Routes:
 *
 * - `GET /health` (no auth);
 * - `POST /v1/complete`, `POST /v1/stream` (neutral API, JSON / SSE of `StreamEvent`s: `routes/neutral.ts`);
 * - `POST /v1/chat/completions` (`routes/chat-completions.ts`), `GET /v1/models` (`routes/models.ts`):
 *   OpenAI-compatible;
 * - `POST /v1/messages`, `POST /v1/messages/count_tokens` (`routes/messages.ts`): the Anthropic Messages API;
 * - `POST /v1/responses` (`routes/responses.ts`): the OpenAI Responses API, stateless (passed through to
 *   Responses routes, converted for the others);
 * - `GET|DELETE /v1/sessions/:id` (affinity pins: `routes/sessions.ts`);
 * - `POST /v1/tasks`, `GET /v1/tasks/:id`, `GET /v1/tasks/:id/events`, `POST /v1/tasks/:id/pause|resume|abort`
 *   (`routes/tasks.ts`);
 * - `GET /v1/streams/:id`, `POST /v1/streams/:id/cancel`: resumable streams (`routes/streams.ts`; a
 *   streaming request asks with `x-modelwire-resumable: 1`: `streams/resumable.ts`);
 * - `POST /v1/evals`: an eval suite on the gateway's routes (`routes/evals.ts`);
 * - `/v1/admin/keys…`, `GET /v1/admin/usage`: virtual keys and their usage (`routes/admin.ts`), for the
 *   `ADMIN_TOKENS` only.
 *
 * Every other route but `/health` needs `Authorization: Bearer <token>` (or `x-api-key: <token>`) matching
 * `GATEWAY_TOKENS`, or a virtual key (admitted and metered by its `KeyObject`: `keys/`); with neither
 * configured the gateway refuses them all. Its own refusals (401, 413) and
 * every failure a route throws are in the path's dialect (`dialect-errors.ts`). Upstream URLs come only
 * from the server's config.
 *
 * @module
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Workflow } from "../agent/workflow.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { EvalSuite } from "../eval/run-eval.ts";
import { VERSION } from "../index.ts";
import type { CreateProviderOptions } from "../substrate/provider-from-config.ts";
import { gatewayTokens, isAuthorized, presentedToken } from "./auth.ts";
import { demoWorkflow } from "./demo.ts";
import { dialectErrorResponse, dialectOfPath, gatewayFailureBody } from "./dialect-errors.ts";
import type { Gateway, WorkerEnv } from "./env.ts";
import { errorResponse, GatewayRefusal, HTTPConfigError } from "./gateway-error.ts";
import { Hono } from "./hono.ts";
import { keyPrincipalOf } from "./keys/gateway-keys.ts";
import { KeyObject } from "./keys/key-object.ts";
import { type OtelSettings, requestTraces } from "./otel.ts";
import { type RouteTables, routeTables } from "./route-table.ts";
import { adminRoutes } from "./routes/admin.ts";
import { chatCompletionRoutes } from "./routes/chat-completions.ts";
import { evalRoutes } from "./routes/evals.ts";
import { messagesRoutes } from "./routes/messages.ts";
import { modelRoutes } from "./routes/models.ts";
import { neutralRoutes } from "./routes/neutral.ts";
import { responsesRoutes } from "./routes/responses.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { streamRoutes } from "./routes/streams.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { SessionObject } from "./session-object.ts";
import { resumableStreams } from "./streams/resumable.ts";
import { createStreamObject } from "./streams/stream-object.ts";
import { createTaskObject, type TaskRuntime } from "./task-object.ts";

export { MAX_JSON_DEPTH } from "./request.ts";
export type { WorkerEnv };
export { HTTPConfigError };

/** Settings of {@link createWorker}. */
export interface CreateWorkerOptions {
  /** Workflows tasks can run, by name. A `demo` workflow is included unless you define your own. */
  workflows?: Record<string, Workflow>;
  /**
   * Eval suites `POST /v1/evals` can run by name (`{ "suite": "<name>", "routes": [...] }`): suites with
   * function checkers or tools, which a request body cannot carry.
   */
  evalSuites?: Record<string, EvalSuite>;
  /** Routes config; when unset, `MODELWIRE_CONFIG` from the environment. */
  config?: unknown;
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Passed to `createProvider` for every route (extra protocol factories, `fetch` for tests, …). */
  providers?: CreateProviderOptions;
  /**
   * How long a streaming response waits for the upstream's first content event before it starts anyway
   * (default 1000 ms). Until then a failure is a plain HTTP error (a 429 with `Retry-After`); after, it is
   * the stream's `event: error` frame, and comments keep the line open — workerd notices a client that
   * left only once the response has started, and then cancels the upstream call.
   */
  streamHoldMs?: number;
  /**
   * How long an open `/v1/messages` or `/v1/responses` stream may stay silent before an SSE comment keeps
   * the line open (default 15 000 ms; see `keep-alive.ts`).
   */
  keepAliveMs?: number;
  /**
   * How long a resumable stream is kept once it finished, for `GET /v1/streams/:id` (default 10 minutes).
   */
  streamRetentionMs?: number;
  /** Makes the id of a new resumable stream (`strm_` + 22 base64url characters; default random). */
  newStreamId?: () => string;
  /** Where configuration problems (and failed OTLP exports) are logged. Default `console.error`. */
  log?: (message: string) => void;
  /**
   * Settings of the OpenTelemetry traces beside the environment (`OTEL_EXPORTER_OTLP_ENDPOINT`, …: see
   * `otel.ts`): the `fetch` spans are exported with.
   */
  otel?: OtelSettings;
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
 * export const { SessionObject, TaskObject, KeyObject, StreamObject } = worker;
 * ```
 */
export function createWorker(options: CreateWorkerOptions = {}) {
  const workflows: Record<string, Workflow> = { demo: demoWorkflow, ...options.workflows };
  const log = options.log ?? ((message: string) => console.error(message));
  const tables = routeTables({ config: options.config, providers: options.providers, log });
  const otel = options.otel ?? {};
  const calls = {
    tables,
    streamHoldMs: options.streamHoldMs,
    keepAliveMs: options.keepAliveMs,
    log,
    traces: (c: Context<Gateway>) => requestTraces(c, otel, log),
  };

  const app = new Hono<Gateway>();

  app.onError((error, c) => {
    const dialect = dialectOfPath(c.req.path);
    const settings = { exposeUpstreamErrors: tables.exposeUpstreamErrors(c.env), log };
    return dialect === "modelwire"
      ? errorResponse(error, settings)
      : dialectErrorResponse(error, dialect, settings);
  });
  // In the path's dialect: `/v1/messages/…` Anthropic's envelope, the OpenAI paths OpenAI's.
  app.notFound((c) =>
    Response.json(
      gatewayFailureBody(dialectOfPath(c.req.path), 404, `No route for ${c.req.method} ${c.req.path}`, {
        kind: "not_found",
        code: "not_found",
      }),
      { status: 404 },
    ),
  );
  /** A 401 in the request's dialect. */
  const unauthorized = (path: string, message: string) =>
    Response.json(
      gatewayFailureBody(dialectOfPath(path), 401, message, { kind: "auth", code: "invalid_api_key" }),
      {
        status: 401,
        headers: { "www-authenticate": "Bearer" },
      },
    );

  app.get("/health", (c) => c.json({ ok: true, name: "modelwire", version: VERSION }));

  app.use("/v1/*", async (c, next) => {
    const path = c.req.path;
    const authorization = c.req.header("authorization");
    const apiKey = c.req.header("x-api-key");
    // The admin API takes the admin tokens only; every other route refuses them (unless also listed
    // in GATEWAY_TOKENS).
    if (path === "/v1/admin" || path.startsWith("/v1/admin/")) {
      const admins = gatewayTokens(c.env?.ADMIN_TOKENS);
      if (admins.length === 0) {
        return unauthorized(path, "the gateway has no ADMIN_TOKENS configured; the admin API is closed");
      }
      if (!(await isAuthorized(authorization, admins, apiKey))) {
        return unauthorized(path, "missing or invalid admin token");
      }
      return next();
    }
    const tokens = gatewayTokens(c.env?.GATEWAY_TOKENS);
    if (await isAuthorized(authorization, tokens, apiKey)) {
      c.set("principal", { kind: "token" });
      return next();
    }
    const token = presentedToken(authorization, apiKey);
    const key = token === undefined ? undefined : await keyPrincipalOf(c.env, token);
    if (key !== undefined && "refused" in key) return unauthorized(path, key.refused);
    if (key !== undefined) {
      if (path.startsWith("/v1/tasks")) {
        // A task's model calls run in its Durable Object, outside the key's limits: not for keys.
        throw new GatewayRefusal({
          status: 403,
          code: "tasks_not_allowed",
          message:
            "tasks run with the gateway's own tokens (GATEWAY_TOKENS); a virtual key cannot start or see them",
        });
      }
      c.set("principal", key);
      return next();
    }
    if (tokens.length === 0 && gatewayTokens(c.env?.ADMIN_TOKENS).length === 0) {
      return unauthorized(path, "the gateway has no GATEWAY_TOKENS configured; every route is closed");
    }
    return unauthorized(path, "missing or invalid bearer token");
  });
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 4 * 1024 * 1024,
      onError: (c) =>
        Response.json(
          gatewayFailureBody(dialectOfPath(c.req.path), 413, "request body too large", {
            kind: "bad_request",
            code: "request_too_large",
          }),
          { status: 413 },
        ),
    }),
  );

  // After authentication and the body limit: a resumable streaming request runs in its stream object.
  app.use(
    "/v1/*",
    resumableStreams({ tables, retentionMs: options.streamRetentionMs, newId: options.newStreamId }),
  );

  app.route("/", neutralRoutes(calls));
  app.route("/", chatCompletionRoutes(calls));
  app.route("/", messagesRoutes(calls));
  app.route("/", responsesRoutes(calls));
  app.route("/", modelRoutes(tables));
  app.route("/", sessionRoutes());
  app.route("/", taskRoutes(workflows));
  app.route("/", evalRoutes(calls, options.evalSuites ?? {}));
  app.route("/", adminRoutes());
  app.route("/", streamRoutes());

  const TaskObject = createTaskObject((env) => taskRuntime(workflows, tables, env as WorkerEnv));
  const StreamObject = createStreamObject(() => app);
  return { app, fetch: app.fetch, SessionObject, TaskObject, KeyObject, StreamObject };
}

/**
 * What a task object runs with: the gateway's workflows, the first member of a route as its provider, and
 * the route's MCP servers (their tools added to the workflow's).
 */
function taskRuntime(
  workflows: Readonly<Record<string, Workflow>>,
  tables: RouteTables,
  env: WorkerEnv,
): TaskRuntime {
  return {
    workflow: (name) => (Object.hasOwn(workflows, name) ? workflows[name] : undefined),
    provider: (alias) => {
      const route = tables.of(env).routes.get(alias);
      if (!route)
        throw new ProviderError({
          kind: "not_found",
          message: `no route "${alias}"`,
          provider: "modelwire",
          model: alias,
        });
      return route.members[0]!;
    },
    mcpServers: (alias) => tables.of(env).routes.get(alias)?.mcp ?? [],
  };
}
