/**
 * `TaskObject`: one Durable Object per agent task. It runs the agent loop step by step on alarms (so a task
 * outlives the request that started it), persists the history after every step, and takes pause, resume
 * and abort at any time — serialised by the object, effective at the next boundary. A restarted object
 * loses nothing: state lives in SQLite and the pending alarm runs the next step.
 *
 * A step is one unit, run at most once: one model call and its tool batch. Its result (the
 * new messages, usage, the `step` event) is written in one transaction after it ends, and only if the task
 * is still live: an abort that arrives during a step cancels the call and keeps nothing of it; a pause
 * that arrives during a step keeps what the step did (it is never run again) and stops before the next
 * one — unless the step finished the task, which then is done. A read of a task that does not exist is a
 * 404 and stores nothing.
 *
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { runAgent, unansweredCalls } from "../agent/run-agent.ts";
import type { Workflow } from "../agent/workflow.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import { addUsage, type Usage } from "../core/usage.ts";
import type { RouteMcpServer } from "./config.ts";
import { clientErrorJSON } from "./gateway-error.ts";
import { type RouteMcpTools, routeMcpTools } from "./route-mcp-tools.ts";

/** Where a task object finds workflows and providers: built from the Worker's config and env. */
export interface TaskRuntime {
  workflow(name: string): Workflow | undefined;
  provider(route: string): Provider;
  /** The MCP servers of a route (its config's `mcp`), whose tools a step gets beside the workflow's. */
  mcpServers?(route: string): readonly RouteMcpServer[];
}

export type TaskStatus = "running" | "paused" | "done" | "max-steps" | "aborted" | "failed";

/** A task as the API shows it. */
export interface TaskState {
  id: string;
  workflow: string;
  status: TaskStatus;
  steps: number;
  usage: Usage;
  history: MessageInput[];
  error: unknown;
  createdAt: number;
  updatedAt: number;
}

/** One progress event, numbered for `Last-Event-ID` resumption. */
export interface TaskEvent {
  id: number;
  type: string;
  data: unknown;
}

/** Result of an RPC call: errors cross the Durable Object boundary as data, not as thrown errors. */
export type TaskResult<T> =
  | { ok: true; value: T }
  | { ok: false; status: number; error: { kind: string; message: string } };

/** Characters per message row: well under SQLite's 2 MB row limit, whatever the UTF-8 width. */
const MESSAGE_PART_CHARS = 256 * 1024;
/** Longest event payload kept, in characters. */
const MAX_EVENT_CHARS = 64 * 1024;
/** Retryable failures of one step before the task fails. */
const MAX_STEP_RETRIES = 8;

const FINAL: ReadonlySet<TaskStatus> = new Set(["done", "max-steps", "aborted", "failed"]);

type Row = Record<string, string | number | null | ArrayBuffer>;

/**
 * The task Durable Object. Abstract: {@link createTaskObject} binds it to a runtime (workflows and routes),
 * so a Worker that imports modelwire exports its own.
 */
export abstract class TaskObjectBase extends DurableObject {
  /** The workflows and routes this object runs with. */
  protected abstract runtime(): TaskRuntime;

  /** Whether the tables exist (made by `start`, the only write that creates a task). */
  private ready = false;
  /** The step in flight, so an abort can cancel its model call or tools. */
  private inFlight: AbortController | undefined;

  /** `env` is widened so a Worker can bind the object to any runtime (see `createTaskObject`). */
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
  }

  /** Creates the task and schedules its first step. */
  async start(input: {
    id: string;
    workflow: string;
    input: string | MessageInput[];
  }): Promise<TaskResult<TaskState>> {
    if (this.load()) return failure(409, "conflict", `task ${input.id} already exists`);
    const workflow = this.runtime().workflow(input.workflow);
    if (!workflow) return failure(404, "not_found", `no workflow named "${input.workflow}"`);
    ensureSchema(this.ctx.storage.sql);
    this.ready = true;
    const history: MessageInput[] = [];
    if (workflow.system) history.push({ role: "system", content: workflow.system });
    if (typeof input.input === "string") history.push({ role: "user", content: input.input });
    else history.push(...input.input);
    const now = Date.now();
    this.ctx.storage.sql.exec(
      "INSERT INTO task (id, workflow, status, steps, usage, error, created_at, updated_at) VALUES (?, ?, 'running', 0, '{}', NULL, ?, ?)",
      input.id,
      input.workflow,
      now,
      now,
    );
    this.append(history);
    this.event("status", { status: "running" });
    await this.ctx.storage.setAlarm(Date.now());
    return { ok: true, value: this.load()! };
  }

  /** The task now. */
  get(): TaskResult<TaskState> {
    const state = this.load();
    return state ? { ok: true, value: state } : failure(404, "not_found", "no such task");
  }

  /** Events after `afterId` (for SSE with `Last-Event-ID`), and whether the task is final. */
  events(afterId: number): TaskResult<{ events: TaskEvent[]; final: boolean }> {
    // Polled by every open SSE stream: read the status only, never the history.
    const status = this.status();
    if (!status) return failure(404, "not_found", "no such task");
    const events = this.ctx.storage.sql
      .exec<Row>("SELECT id, type, data FROM events WHERE id > ? ORDER BY id LIMIT 500", afterId)
      .toArray()
      .map((row) => ({
        id: Number(row.id),
        type: String(row.type),
        data: JSON.parse(String(row.data)) as unknown,
      }));
    return { ok: true, value: { events, final: FINAL.has(status) } };
  }

  /** Stops the task at its next boundary. A final task cannot be paused. */
  pause(): TaskResult<TaskState> {
    return this.transition(["running"], "paused");
  }

  /** Continues a paused task from its persisted history. */
  async resume(): Promise<TaskResult<TaskState>> {
    const result = this.transition(["paused"], "running");
    if (result.ok) await this.ctx.storage.setAlarm(Date.now());
    return result;
  }

  /** Ends the task for good; a step in flight is cancelled and leaves nothing behind. */
  abort(): TaskResult<TaskState> {
    const result = this.transition(["running", "paused"], "aborted");
    if (result.ok) this.inFlight?.abort(new DOMException("task aborted", "AbortError"));
    return result;
  }

  /**
   * Runs one step — a pending tool batch, one model call and the tool batch it asks for — and commits it
   * in one transaction. Reschedules itself while the task is running.
   */
  override async alarm(): Promise<void> {
    const state = this.load();
    if (state?.status !== "running") return;
    const runtime = this.runtime();
    const workflow = runtime.workflow(state.workflow);
    if (!workflow) {
      this.finish("failed", {
        kind: "config",
        message: `workflow "${state.workflow}" is no longer configured`,
      });
      return;
    }
    const maxSteps = workflow.maxSteps ?? 16;
    // Events of the step are written with it, or not at all.
    const events: { type: string; data: unknown }[] = [];
    const controller = new AbortController();
    this.inFlight = controller;
    let result: Awaited<ReturnType<typeof runAgent>>;
    // The route's MCP servers, connected for this step (and their sessions ended after it).
    let mcp: RouteMcpTools | undefined;
    try {
      mcp = await routeMcpTools(
        runtime.mcpServers?.(workflow.route) ?? [],
        workflow.tools ?? [],
        controller.signal,
      );
      result = await runAgent({
        provider: runtime.provider(workflow.route),
        tools: mcp.tools,
        messages: state.history,
        maxSteps: Math.min(1, Math.max(0, maxSteps - state.steps)),
        signal: controller.signal,
        // Read at every boundary: a pause or abort that arrived while a model call was in flight counts.
        pause: () => this.status(),
        callOptions: workflow.callOptions,
        compaction: workflow.compaction,
        onEvent: (event) => {
          if (event.type === "compaction") {
            events.push({ type: "compaction", data: event.report });
          } else if (event.type === "model-response") {
            events.push({
              type: "step",
              data: {
                step: state.steps + event.step,
                text: event.response.message.content,
                toolCalls: event.response.message.toolCalls,
                stopReason: event.response.stopReason,
              },
            });
          } else if (event.type === "tool-results") {
            events.push({ type: "tool-results", data: { results: event.results } });
          }
        },
      });
    } catch (error) {
      if (this.status() !== "running") return;
      const failed = ProviderError.is(error)
        ? clientErrorJSON(error)
        : { kind: "internal", message: error instanceof Error ? error.message : String(error) };
      // A retryable failure is tried again later, with growing waits and a limit; the history is untouched,
      // so nothing is lost.
      const retries = Number(
        this.ctx.storage.sql.exec<Row>("SELECT retries FROM task LIMIT 1").one().retries ?? 0,
      );
      if (ProviderError.is(error) && error.retryable && retries < MAX_STEP_RETRIES) {
        this.ctx.storage.sql.exec("UPDATE task SET retries = ? WHERE id = ?", retries + 1, state.id);
        this.event("retry", { error: failed, attempt: retries + 1 });
        const backoff = Math.min(2000 * 2 ** retries, 60_000);
        await this.ctx.storage.setAlarm(
          Date.now() + Math.min(Math.max(error.retryAfterMs ?? 0, backoff), 300_000),
        );
        return;
      }
      this.finish("failed", failed);
      return;
    } finally {
      if (this.inFlight === controller) this.inFlight = undefined;
      await mcp?.close();
    }
    // What the task is now: a pause or abort may have arrived during the step.
    const current = this.status() ?? state.status;
    // Aborted (or otherwise ended) while the step ran: nothing of it is kept.
    if (FINAL.has(current) || result.status === "aborted") return;
    const steps = state.steps + result.steps;
    const usage = addUsage(state.usage, result.usage);
    // The step's own outcome; a task it finished is done even if a pause arrived meanwhile (there is no
    // boundary left to pause at, and resuming must not run the finished step again).
    let status: TaskStatus = current;
    if (result.status === "done") status = "done";
    else if (
      result.status === "max-steps" &&
      steps >= maxSteps &&
      unansweredCalls(result.messages).length === 0
    )
      status = "max-steps";
    // One transaction per step: the new messages (the loop only appends, unless it compacted: then the
    // whole history is replaced), its events, the counters and the status land together or not at all, so
    // a failed write never leaves half a step to be run again.
    const compacted = result.compactions.some((report) => report.strategy === "summary");
    this.ctx.storage.transactionSync(() => {
      if (compacted) {
        this.ctx.storage.sql.exec("DELETE FROM messages");
        this.append(result.messages);
      } else this.append(result.messages.slice(state.history.length));
      for (const event of events) this.event(event.type, event.data);
      this.ctx.storage.sql.exec(
        "UPDATE task SET steps = ?, usage = ?, status = ?, retries = 0, updated_at = ? WHERE id = ?",
        steps,
        JSON.stringify(usage),
        status,
        Date.now(),
        state.id,
      );
      // A status a transition set was logged by it; only a change this step made is logged here.
      if (status !== current) this.event("status", { status, usage, steps });
    });
    if (status === "running") await this.ctx.storage.setAlarm(Date.now());
  }

  private transition(from: readonly TaskStatus[], to: TaskStatus): TaskResult<TaskState> {
    const state = this.load();
    if (!state) return failure(404, "not_found", "no such task");
    if (state.status === to) return { ok: true, value: state };
    if (!from.includes(state.status))
      return failure(409, "conflict", `task is ${state.status}; cannot become ${to}`);
    this.ctx.storage.sql.exec(
      "UPDATE task SET status = ?, updated_at = ? WHERE id = ?",
      to,
      Date.now(),
      state.id,
    );
    this.event("status", { status: to });
    return { ok: true, value: this.load()! };
  }

  private finish(status: TaskStatus, error: unknown): void {
    const state = this.load();
    if (!state) return;
    this.ctx.storage.sql.exec(
      "UPDATE task SET status = ?, error = ?, updated_at = ? WHERE id = ?",
      status,
      JSON.stringify(error),
      Date.now(),
      state.id,
    );
    this.event("status", { status, error });
  }

  /**
   * One row per message, not one row for the whole history: a SQLite row holds at most 2 MB, and a long
   * agent history with thinking blocks outgrows that.
   */
  private append(messages: readonly MessageInput[]): void {
    let next = Number(
      this.ctx.storage.sql.exec<Row>("SELECT COALESCE(MAX(msg) + 1, 0) AS next FROM messages").one().next,
    );
    for (const message of messages) {
      const json = JSON.stringify(message);
      // A big tool result must not hit the 2 MB row limit: long messages span several rows.
      for (
        let part = 0, offset = 0;
        offset < json.length || part === 0;
        part++, offset += MESSAGE_PART_CHARS
      ) {
        this.ctx.storage.sql.exec(
          "INSERT INTO messages (msg, part, json) VALUES (?, ?, ?)",
          next,
          part,
          json.slice(offset, offset + MESSAGE_PART_CHARS),
        );
      }
      next++;
    }
  }

  private event(type: string, data: unknown): void {
    let json = JSON.stringify(data);
    // Events are progress notes; the full record is the history. A huge one is cut, and says so.
    if (json.length > MAX_EVENT_CHARS)
      json = JSON.stringify({ truncated: true, preview: json.slice(0, MAX_EVENT_CHARS) });
    this.ctx.storage.sql.exec("INSERT INTO events (type, data) VALUES (?, ?)", type, json);
  }

  private history(): MessageInput[] {
    const messages: MessageInput[] = [];
    let current = -1;
    let parts: string[] = [];
    const flush = () => {
      if (parts.length > 0) messages.push(JSON.parse(parts.join("")) as MessageInput);
    };
    for (const row of this.ctx.storage.sql
      .exec<Row>("SELECT msg, json FROM messages ORDER BY msg, part")
      .toArray()) {
      if (Number(row.msg) !== current) {
        flush();
        parts = [];
        current = Number(row.msg);
      }
      parts.push(String(row.json));
    }
    flush();
    return messages;
  }

  /** Only the status: read at every loop boundary, so it must not load the history. */
  private status(): TaskStatus | undefined {
    if (!this.exists()) return undefined;
    const row = this.ctx.storage.sql.exec<Row>("SELECT status FROM task LIMIT 1").toArray()[0];
    return row ? (String(row.status) as TaskStatus) : undefined;
  }

  /** Whether this task was ever created, asked without creating anything. */
  private exists(): boolean {
    if (this.ready) return true;
    this.ready =
      this.ctx.storage.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task'")
        .toArray().length > 0;
    return this.ready;
  }

  private load(): TaskState | undefined {
    if (!this.exists()) return undefined;
    const row = this.ctx.storage.sql.exec<Row>("SELECT * FROM task LIMIT 1").toArray()[0];
    if (!row) return undefined;
    return {
      id: String(row.id),
      workflow: String(row.workflow),
      status: String(row.status) as TaskStatus,
      steps: Number(row.steps),
      usage: JSON.parse(String(row.usage)) as Usage,
      history: this.history(),
      error: row.error === null ? undefined : (JSON.parse(String(row.error)) as unknown),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  }
}

/**
 * Builds the `TaskObject` class for a runtime, so a Worker that imports modelwire can export its own:
 * `export const TaskObject = createTaskObject(runtimeOf)`.
 */
export function createTaskObject(
  runtimeOf: (env: unknown) => TaskRuntime,
): new (
  ctx: DurableObjectState,
  env: unknown,
) => TaskObjectBase {
  return class TaskObject extends TaskObjectBase {
    protected runtime(): TaskRuntime {
      return runtimeOf(this.env);
    }
  };
}

function ensureSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS task (
    id TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    status TEXT NOT NULL,
    steps INTEGER NOT NULL,
    usage TEXT NOT NULL,
    error TEXT,
    retries INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`);
  sql.exec(
    "CREATE TABLE IF NOT EXISTS messages (msg INTEGER NOT NULL, part INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (msg, part))",
  );
  sql.exec(
    "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL)",
  );
}

function failure(
  status: number,
  kind: string,
  message: string,
): { ok: false; status: number; error: { kind: string; message: string } } {
  return { ok: false, status, error: { kind, message } };
}
