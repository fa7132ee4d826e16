/**
 * Tasks: `POST /v1/tasks` (start one), `GET /v1/tasks/:id`, `POST /v1/tasks/:id/pause|resume|abort`, and
 * `GET /v1/tasks/:id/events` (its progress as SSE). Each task is its own task object (the `TASKS`
 * binding); its RPC results carry their errors as data, answered here with their status.
 *
 * @module
 */
import type { Context } from "hono";
import * as z from "zod/mini";
import type { Workflow } from "../../agent/workflow.ts";
import { MessageSchema } from "../../core/message.ts";
import { ValidationError, validate } from "../../core/validation-error.ts";
import type { Gateway } from "../env.ts";
import { HTTPConfigError } from "../gateway-error.ts";
import { Hono } from "../hono.ts";
import { integerParam, jsonBody, linkedAbort, sleep } from "../request.ts";
import type { TaskEvent, TaskResult } from "../task-object.ts";
import { type Frame, sseResponse } from "../write-sse.ts";

const TaskRequestSchema = z.strictObject({
  workflow: z.string().check(z.minLength(1)),
  input: z.union([z.string().check(z.minLength(1)), z.array(MessageSchema).check(z.minLength(1))]),
  id: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/))),
});

/** Longest life of one task event stream; the client reconnects with `Last-Event-ID`. */
const EVENT_STREAM_MAX_MS = 15 * 60_000;
/** How long an idle event stream waits before a keep-alive comment. */
const KEEPALIVE_MS = 15_000;
/** Longest wait between two polls of an idle task. */
const MAX_POLL_MS = 5000;

type EventPage = TaskResult<{ events: TaskEvent[]; final: boolean }>;

/** The task routes of a gateway whose tasks run `workflows`. */
export function taskRoutes(workflows: Readonly<Record<string, Workflow>>): Hono<Gateway> {
  const app = new Hono<Gateway>();

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
    const after = integerParam(
      c.req.header("last-event-id") ?? c.req.query("after"),
      "last-event-id",
      0,
      Number.MAX_SAFE_INTEGER,
      0,
    );
    const poll = integerParam(c.req.query("poll"), "poll", 20, MAX_POLL_MS, 250);
    const stub = taskStub(c, c.req.param("id"));
    const first = await stub.events(after);
    if (!first.ok) return taskReply(c, first);
    // Stops the polling when the client goes away (the request's signal, or the body cancelled).
    const stop = linkedAbort(c.req.raw.signal);
    return sseResponse(
      taskEventFrames((from) => stub.events(from), { first, after, poll, signal: stop.signal }),
      {
        abort: stop,
        context: { provider: "modelwire", model: "tasks" },
        headers: { "cache-control": "no-cache" },
      },
    );
  });

  return app;
}

/**
 * The frames of a task's event stream: each page's events (with their ids), polling the task while it is
 * idle with a back-off from `poll` up to {@link MAX_POLL_MS} and a keep-alive comment after
 * {@link KEEPALIVE_MS} of quiet; it ends when the task is final, after {@link EVENT_STREAM_MAX_MS}, or when
 * `signal` aborts. A failed read of the task is the last frame, an `error`.
 */
async function* taskEventFrames(
  events: (after: number) => Promise<EventPage>,
  start: { first: EventPage; after: number; poll: number; signal: AbortSignal },
): AsyncGenerator<Frame, void, undefined> {
  const { poll, signal } = start;
  const started = Date.now();
  let after = start.after;
  let page: EventPage | undefined = start.first;
  let idle = poll;
  let quietSince = Date.now();
  while (!signal.aborted) {
    page ??= await events(after);
    const current = page;
    page = undefined;
    if (!current.ok) {
      yield { data: current.error, event: "error" };
      return;
    }
    for (const event of current.value.events) {
      yield { data: event.data, event: event.type, id: event.id };
      after = event.id;
    }
    if (current.value.events.length > 0) {
      idle = poll;
      quietSince = Date.now();
      continue;
    }
    if (current.value.final || Date.now() - started > EVENT_STREAM_MAX_MS) return;
    if (Date.now() - quietSince >= KEEPALIVE_MS) {
      quietSince = Date.now();
      yield { comment: "keep-alive" };
      continue;
    }
    await sleep(idle, signal);
    idle = Math.min(idle * 2, MAX_POLL_MS);
  }
}

function taskStub(c: Context<Gateway>, id: string) {
  const tasks = c.env?.TASKS;
  if (!tasks) throw new HTTPConfigError("the TASKS Durable Object binding is missing");
  return tasks.get(tasks.idFromName(id));
}

function taskReply(c: Context, result: TaskResult<unknown>, status = 200) {
  return result.ok
    ? c.json(result.value, status as 200)
    : c.json({ error: result.error }, result.status as 404);
}
