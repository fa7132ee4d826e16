/**
 * `StreamObject`: one Durable Object per resumable stream. The streaming request runs inside it — the
 * gateway's own app answers it there, so every streaming endpoint and dialect works the same — and every
 * SSE event of the answer is appended to SQLite (numbered: the `id:` of the event) before any reader is
 * sent it. Readers replay the log strictly after the `Last-Event-ID` they give and then follow it live; a
 * reader that leaves changes nothing (the call runs on), `cancel` stops it.
 *
 * The log always ends: with the answer's own terminal event when the run ends (the gateway's SSE writer
 * ends every stream with its terminal or error event), or — when the object restarted while the call was
 * in flight, or the log outgrew its bounds — with an error event in the endpoint's dialect, written by the
 * object (`interrupted.ts`). A finished stream is kept for its retention time, then deleted by an alarm.
 * Only its owner (the key, or the gateway token's hash, that started it) may read or cancel it.
 *
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { ProviderError } from "../../core/provider-error.ts";
import { type LazySchema, lazySchema } from "../lazy-schema.ts";
import { interruptedFrames } from "./interrupted.ts";

/** What the object answers requests with: the gateway's app. */
export interface StreamApp {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Response | Promise<Response>;
}

/** What starts a resumable stream: the request to run (headers in memory only, never stored). */
export interface StreamStart {
  id: string;
  /** Who may read it: `key:<id>` or `token:<sha-256>`. */
  owner: string;
  url: string;
  method: string;
  headers: [string, string][];
  body: string;
  /** How long the stream is kept once finished. */
  retentionMs: number;
}

/** Where a stream stands. */
export type StreamStatus = "streaming" | "done" | "failed" | "cancelled";

/** The most events one stream keeps; past it the run is stopped and the log ended with an error. */
export const MAX_STREAM_EVENTS = 100_000;
/** The most characters one stream keeps. */
export const MAX_STREAM_CHARS = 64 * 1024 * 1024;
/** The most readers one stream serves at once (a new one past it closes the oldest). */
export const MAX_READERS = 32;
/** How long a reader waiting for the next event stays silent before a comment keeps the line open. */
export const READER_KEEP_ALIVE_MS = 15_000;
/** Events a reader reads from storage at once. */
const PAGE = 256;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS stream (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    path TEXT NOT NULL,
    status TEXT NOT NULL,
    headers TEXT NOT NULL,
    retention_ms INTEGER NOT NULL,
    chars INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
  )`,
  // An event longer than MAX_ROW_CHARS is kept in `parts` (a SQLite row holds at most 2 MB).
  "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, text TEXT NOT NULL, parts INTEGER NOT NULL DEFAULT 0)",
  "CREATE TABLE IF NOT EXISTS parts (seq INTEGER NOT NULL, part INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (seq, part))",
];

/** The longest text one row holds (UTF-8 is at most 3 bytes a character: under SQLite's 2 MB a row). */
const MAX_ROW_CHARS = 512 * 1024;
/** How often a running stream's object checks that its run is still there (a backstop for restarts). */
const RUN_CHECK_MS = 10 * 60_000;

type StreamRow = {
  id: string;
  owner: string;
  path: string;
  status: StreamStatus;
  headers: string;
  retention_ms: number;
  chars: number;
  finished_at: number | null;
};

/** Response headers a resumed stream carries again (the others were about the first connection). */
const KEPT_HEADERS = /^(x-modelwire-|request-id$|x-request-id$|openai-|anthropic-)/;

const encoder = new TextEncoder();

/** The Durable Object; {@link createStreamObject} binds it to the gateway's app. */
export abstract class StreamObjectBase extends DurableObject {
  protected abstract app(): StreamApp;

  private readonly sql: SqlStorage;
  /** The run in flight in this instance (none after a restart). */
  private run: AbortController | undefined;
  /** Readers waiting for the next event. */
  private readonly waiting = new Set<() => void>();
  /** The open readers, oldest first, each closing itself when called (the oldest makes room). */
  private readonly open = new Set<() => void>();
  /** Its tables, made by the first write (`lazy-schema.ts`). */
  private readonly schema: LazySchema;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.schema = lazySchema(this.sql, SCHEMA, "stream");
    ctx.blockConcurrencyWhile(async () => {
      // A fresh instance has no run: a stream still "streaming" was cut by a restart.
      if (this.row()?.status === "streaming") await this.interrupted();
    });
  }

  /**
   * Runs the request and answers with its first reader (from the start, live). An answer that is not an
   * SSE stream (a refusal, a 400, an upstream failure within the hold) is returned as it is, and nothing
   * is kept.
   */
  async start(start: StreamStart): Promise<Response> {
    if (this.row()) {
      return Response.json({ error: { kind: "conflict", message: "stream exists" } }, { status: 409 });
    }
    const run = new AbortController();
    const request = new Request(start.url, {
      method: start.method,
      headers: start.headers,
      body: start.body,
      signal: run.signal,
    });
    const ctx = {
      waitUntil: (promise: Promise<unknown>) => this.ctx.waitUntil(promise),
      passThroughOnException() {},
      props: {},
    } as unknown as ExecutionContext;
    const answer = await this.app().fetch(request, this.env, ctx);
    const type = answer.headers.get("content-type") ?? "";
    if (!answer.ok || !type.startsWith("text/event-stream") || !answer.body) return answer;
    const kept: [string, string][] = [];
    answer.headers.forEach((value, name) => {
      if (KEPT_HEADERS.test(name)) kept.push([name, value]);
    });
    this.schema.ensure();
    this.sql.exec(
      "INSERT INTO stream (id, owner, path, status, headers, retention_ms, created_at) VALUES (?, ?, ?, 'streaming', ?, ?, ?)",
      start.id,
      start.owner,
      new URL(start.url).pathname,
      JSON.stringify(kept),
      start.retentionMs,
      Date.now(),
    );
    this.run = run;
    // A backstop: a run lost to a restart is found and ended even if nobody reads the stream again.
    await this.ctx.storage.setAlarm(Date.now() + RUN_CHECK_MS);
    this.ctx.waitUntil(this.pump(answer.body, run));
    return this.reader(0);
  }

  /** A reader of the stream after event `after`, when `owner` owns it; undefined when not (or no stream). */
  read(owner: string, after: number): Response | undefined {
    const row = this.row();
    if (!row || row.owner !== owner) return undefined;
    // Full: the oldest reader makes room (a client reconnecting fast must not lock itself out while its
    // dropped connections are still counted).
    if (this.open.size >= MAX_READERS) [...this.open][0]!();
    return this.reader(after);
  }

  /** Stops the run (its upstream call is aborted; the log ends with the dialect's error). */
  cancel(owner: string): { status: StreamStatus } | undefined {
    const row = this.row();
    if (!row || row.owner !== owner) return undefined;
    if (row.status === "streaming") {
      this.sql.exec("UPDATE stream SET status = 'cancelled'");
      this.run?.abort(new DOMException("cancelled with POST /v1/streams/:id/cancel", "AbortError"));
    }
    return { status: this.row()!.status };
  }

  /** Where the stream stands, for its owner. */
  state(owner: string): { status: StreamStatus; events: number; finished: boolean } | undefined {
    const row = this.row();
    if (!row || row.owner !== owner) return undefined;
    return { status: row.status, events: this.lastSeq(), finished: row.finished_at !== null };
  }

  /**
   * Deletes a finished stream once its retention time has passed; for one still running, checks that its
   * run is here (a run lost to a restart is ended) and looks again later.
   */
  override async alarm(): Promise<void> {
    const row = this.row();
    if (!row) return;
    if (row.finished_at !== null) {
      for (const close of [...this.open]) close();
      await this.ctx.storage.deleteAll();
      this.schema.forget();
      return;
    }
    if (this.run) await this.ctx.storage.setAlarm(Date.now() + RUN_CHECK_MS);
    else await this.interrupted();
  }

  /** Ends a stream whose run is gone (the object restarted) with the dialect's error. */
  private async interrupted(): Promise<void> {
    await this.end(
      "failed",
      new ProviderError({
        kind: "network",
        message: "the stream's run was interrupted (its Durable Object restarted); send the request again",
        provider: "modelwire",
        model: "stream",
      }),
    );
  }

  /** Reads the run's SSE body into the log, event by event; the log is ended whatever happens. */
  private async pump(body: ReadableStream<Uint8Array>, run: AbortController): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    /** Comment lines (late headers) waiting for the next event, which carries them. */
    let comments = "";
    let outgrown = false;
    try {
      while (!outgrown) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          const lines = block.split("\n");
          if (lines.every((line) => line.startsWith(":"))) {
            // Keep-alives are the live connection's; header comments go with the next event.
            if (!/^: (keep-alive|waiting for the upstream)$/.test(block)) comments += `${block}\n`;
            continue;
          }
          if (!this.append(comments + block)) {
            outgrown = true;
            break;
          }
          comments = "";
        }
      }
    } catch (error) {
      // The body broke, or storage refused an event: the call is stopped, the log ended with an error.
      run.abort(error);
      await reader.cancel(error).catch(() => {});
      if (this.row()?.status === "cancelled") await this.finish("cancelled");
      else await this.end("failed", brokeWith(error));
      return;
    }
    if (outgrown) {
      run.abort(new DOMException("the stream outgrew its log", "AbortError"));
      await reader.cancel().catch(() => {});
      await this.end(
        "failed",
        new ProviderError({
          kind: "server",
          message: `the stream outgrew its log (${MAX_STREAM_EVENTS} events or ${MAX_STREAM_CHARS} characters)`,
          provider: "modelwire",
          model: "stream",
        }),
      );
      return;
    }
    await this.finish(this.row()?.status === "cancelled" ? "cancelled" : "done");
  }

  /** Appends one event (its `id:` added); false when the log is full. */
  private append(text: string): boolean {
    const row = this.row()!;
    const seq = this.lastSeq() + 1;
    if (seq > MAX_STREAM_EVENTS || row.chars + text.length > MAX_STREAM_CHARS) return false;
    this.store(seq, `id: ${seq}\n${text}\n\n`);
    this.sql.exec("UPDATE stream SET chars = chars + ?", text.length);
    this.wake();
    return true;
  }

  /** Stores event `seq`: in its row, or — longer than one row holds — in parts. */
  private store(seq: number, text: string): void {
    if (text.length <= MAX_ROW_CHARS) {
      this.sql.exec("INSERT INTO events (seq, text, parts) VALUES (?, ?, 0)", seq, text);
      return;
    }
    let parts = 0;
    for (let start = 0; start < text.length; start += MAX_ROW_CHARS) {
      this.sql.exec(
        "INSERT INTO parts (seq, part, text) VALUES (?, ?, ?)",
        seq,
        parts++,
        text.slice(start, start + MAX_ROW_CHARS),
      );
    }
    this.sql.exec("INSERT INTO events (seq, text, parts) VALUES (?, '', ?)", seq, parts);
  }

  /** Ends the log with the dialect's error frames for `failure`, then finishes it as `status`. */
  private async end(status: StreamStatus, failure: ProviderError): Promise<void> {
    const row = this.row()!;
    // What the dialect's ending reads of the log: its first events (the Responses API's announced
    // response) and its last ones (their numbering) — never the whole log.
    const stored = this.sql
      .exec<{ text: string }>(
        "SELECT text FROM events WHERE seq <= 3 OR seq > (SELECT MAX(seq) - 3 FROM events) ORDER BY seq",
      )
      .toArray()
      .map((event) => String(event.text));
    const text = interruptedFrames(row.path, stored, failure);
    for (const block of text.split("\n\n").filter((part) => part !== "")) {
      const seq = this.lastSeq() + 1;
      this.store(seq, `id: ${seq}\n${block}\n\n`);
    }
    await this.finish(status);
  }

  /** Marks the stream finished, wakes every reader, and schedules its deletion. */
  private async finish(status: StreamStatus): Promise<void> {
    const row = this.row()!;
    this.sql.exec("UPDATE stream SET status = ?, finished_at = ?", status, Date.now());
    this.run = undefined;
    this.wake();
    await this.ctx.storage.setAlarm(Date.now() + row.retention_ms);
  }

  /** An SSE response replaying the log after `after`, then following it until it is finished. */
  private reader(after: number): Response {
    const row = this.row()!;
    let next = after;
    /** A long event being sent part by part. */
    let long: { seq: number; part: number; parts: number } | undefined;
    let left = false;
    let wakeMe: (() => void) | undefined;
    let closeBody: (() => void) | undefined;
    const leave = () => {
      left = true;
      this.open.delete(close);
      wakeMe?.();
    };
    const close = () => {
      leave();
      closeBody?.();
    };
    this.open.add(close);
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        closeBody = () => {
          try {
            controller.close();
          } catch {
            // Already closed.
          }
        };
      },
      pull: async (controller) => {
        for (;;) {
          if (left || !this.schema.exists()) {
            close();
            return;
          }
          if (long) {
            const part = this.sql
              .exec<{ text: string }>(
                "SELECT text FROM parts WHERE seq = ? AND part = ?",
                long.seq,
                long.part,
              )
              .toArray()[0];
            controller.enqueue(encoder.encode(String(part?.text ?? "")));
            if (++long.part >= long.parts) {
              next = long.seq;
              long = undefined;
            }
            return;
          }
          const events = this.sql
            .exec<{ seq: number; text: string; parts: number }>(
              "SELECT seq, text, parts FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
              next,
              PAGE,
            )
            .toArray();
          if (events.length > 0) {
            let text = "";
            for (const event of events) {
              if (Number(event.parts) > 0) {
                long = { seq: Number(event.seq), part: 0, parts: Number(event.parts) };
                break;
              }
              text += String(event.text);
              next = Number(event.seq);
            }
            if (text === "") continue;
            controller.enqueue(encoder.encode(text));
            return;
          }
          // The end is the finish, not the status: a cancelled stream's last events are still coming.
          if (this.row()?.finished_at !== null) {
            close();
            return;
          }
          // Nothing new: wait for the next event, or send a comment after a silent stretch.
          const woken = await new Promise<boolean>((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              this.waiting.delete(wake);
              wakeMe = undefined;
              resolve(true);
            };
            const timer = setTimeout(() => {
              this.waiting.delete(wake);
              wakeMe = undefined;
              resolve(false);
            }, READER_KEEP_ALIVE_MS);
            this.waiting.add(wake);
            wakeMe = wake;
          });
          if (!woken && !left) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            return;
          }
        }
      },
      cancel: () => leave(),
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-modelwire-stream-id": row.id,
        ...Object.fromEntries(JSON.parse(row.headers) as [string, string][]),
      },
    });
  }

  private wake(): void {
    for (const wake of [...this.waiting]) wake();
  }

  private row(): StreamRow | undefined {
    if (!this.schema.exists()) return undefined;
    return this.sql
      .exec<StreamRow>(
        "SELECT id, owner, path, status, headers, retention_ms, chars, finished_at FROM stream",
      )
      .toArray()[0];
  }

  private lastSeq(): number {
    return Number(this.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM events").one().seq ?? 0);
  }
}

/** A failure of the stream's body (or of its storage) as the error its log ends with. */
function brokeWith(error: unknown): ProviderError {
  return new ProviderError({
    kind: "network",
    message: `the stream broke before its end: ${error instanceof Error ? error.message : String(error)}`,
    provider: "modelwire",
    model: "stream",
  });
}

/** The stream object of a gateway: {@link StreamObjectBase} answering with `appOf()`. */
export function createStreamObject(
  appOf: () => StreamApp,
): new (
  ctx: DurableObjectState,
  env: unknown,
) => StreamObjectBase {
  return class StreamObject extends StreamObjectBase {
    protected app(): StreamApp {
      return appOf();
    }
  };
}
