/**
 * Resumable streams, in workerd with the real `StreamObject` (its app replaced by a test gateway whose
 * upstream is faked at the fetch layer): for every streaming endpoint a stream cut after N events and
 * resumed with `Last-Event-ID` yields every event exactly once, in order; a resume before the first
 * token and after the end; a client that leaves does not stop the call, `cancel` does (the upstream sees
 * the abort); an object restart mid-call ends the log with an error event; only the key that started a
 * stream can read or cancel it.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { StreamApp, StreamObjectBase } from "../../src/worker/streams/stream-object.ts";
import {
  anthropicEvents,
  anthropicFrames,
  gateway,
  gatewayEnv,
  parseSse,
  type SseFrame,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamHandler,
  waitFor,
} from "./helpers.ts";

let counter = 0;
/** A fresh stream id of the right shape. */
const nextId = () => `strm_${String(Date.now()).padStart(16, "0")}${String(counter++).padStart(6, "0")}`;

/** A gateway whose stream objects answer with itself (the test's upstream), and the next stream's id. */
async function streamGateway(handler: UpstreamHandler, options: Parameters<typeof gateway>[1] = {}) {
  let id = nextId();
  const g = gateway(handler, { streamHoldMs: 0, ...options, newStreamId: () => id });
  /** Points the next stream's object at this gateway, and returns its id. */
  const prepare = async () => {
    id = nextId();
    const app: StreamApp = { fetch: (request, _env, ctx) => g.worker.app.fetch(request, gatewayEnv, ctx) };
    await runInDurableObject(streamStub(id), (instance) => {
      (instance as unknown as { app: () => StreamApp }).app = () => app;
    });
    return id;
  };
  return { ...g, prepare };
}

const streamStub = (id: string): DurableObjectStub<StreamObjectBase> =>
  env.STREAMS.get(env.STREAMS.idFromName(id));

/** Reads `response`'s SSE until `count` events with an id came (then leaves), or to its end. */
async function readEvents(response: Response, count = Number.POSITIVE_INFINITY): Promise<SseFrame[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let events: SseFrame[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const complete = text.slice(0, text.lastIndexOf("\n\n") + 2);
    events = parseSse(complete).filter((frame) => frame.id !== undefined);
    if (events.length >= count) {
      await reader.cancel();
      return events.slice(0, count);
    }
  }
  return parseSse(text).filter((frame) => frame.id !== undefined);
}

/** Anthropic frames of a ten-piece answer, one every few ms. */
const TEN = ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight ", "nine ", "ten"];
const slowAnthropic: UpstreamHandler = (call) =>
  sseResponse(
    streamBody(
      anthropicFrames(anthropicEvents(TEN)).map((frame) => frame),
      { signal: call.signal },
    ),
  );

/**
 * An upstream that sends Anthropic's first frames (message_start, a text block's start, a ping, one delta
 * of `text`) and then nothing more until the call is aborted.
 */
const hangingAfterContent =
  (text: string): UpstreamHandler =>
  (call) =>
    sseResponse(
      streamBody(anthropicFrames(anthropicEvents([text])).slice(0, 4), { end: "hang", signal: call.signal }),
    );

const RESUMABLE = { "x-modelwire-resumable": "1" };
const user = [{ role: "user", content: "count to ten" }];
const ENDPOINTS: [path: string, body: Record<string, unknown>, terminal: (frames: SseFrame[]) => boolean][] =
  [
    ["/v1/stream", { route: "claude", messages: user }, (f) => f.at(-1)?.event === "done"],
    [
      "/v1/chat/completions",
      { model: "claude", stream: true, messages: user },
      (f) => f.at(-1)?.data === "[DONE]",
    ],
    [
      "/v1/messages",
      { model: "claude", stream: true, max_tokens: 100, messages: user },
      (f) => f.at(-1)?.event === "message_stop",
    ],
    [
      "/v1/responses",
      { model: "claude", stream: true, input: "count to ten" },
      (f) => f.at(-1)?.event === "response.completed",
    ],
  ];

describe("resumable streams", () => {
  for (const [path, body, terminal] of ENDPOINTS) {
    it(`${path}: cut after 3 events and resumed with Last-Event-ID, every event exactly once, in order`, async () => {
      const g = await streamGateway(slowAnthropic);
      const id = await g.prepare();
      const first = await g.call(path, { json: body, headers: RESUMABLE });
      expect(first.status).toBe(200);
      expect(first.headers.get("x-modelwire-stream-id")).toBe(id);
      const head = await readEvents(first, 3);
      expect(head.map((frame) => frame.id)).toEqual(["1", "2", "3"]);

      // The client left; the call runs on. Resume after event 3.
      const resumed = await g.call(`/v1/streams/${id}`, { headers: { "last-event-id": "3" } });
      expect(resumed.status).toBe(200);
      expect(resumed.headers.get("content-type")).toContain("text/event-stream");
      const tail = await readEvents(resumed);
      const all = [...head, ...tail];
      expect(all.map((frame) => Number(frame.id))).toEqual(all.map((_, index) => index + 1));
      expect(terminal(all)).toBe(true);
      // One upstream call, never aborted by the client leaving.
      expect(g.calls).toHaveLength(1);
      expect(g.calls[0]!.signal?.aborted ?? false).toBe(false);

      // A read from the start after the end: the same events, the same bytes.
      const replay = await readEvents(await g.call(`/v1/streams/${id}`));
      expect(replay).toEqual(all);
      // The text is all there.
      const text = JSON.stringify(all.map((frame) => frame.data));
      for (const piece of TEN) expect(text).toContain(piece.trim());
    });
  }

  it("a resume before the first token waits for it, and gets every event", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const g = await streamGateway(async (call) => {
      await gate;
      return slowAnthropic(call);
    });
    const id = await g.prepare();
    const first = await g.call("/v1/stream", {
      json: { route: "claude", messages: user },
      headers: RESUMABLE,
    });
    expect(first.status).toBe(200);
    await first.body!.cancel();
    const resumed = g.call(`/v1/streams/${id}`);
    release();
    const events = await readEvents(await resumed);
    expect(events.at(-1)?.event).toBe("done");
    expect(events.map((frame) => Number(frame.id))).toEqual(events.map((_, index) => index + 1));
  });

  it("a resume after the last event ends at once; a bad Last-Event-ID is a 400", async () => {
    const g = await streamGateway(slowAnthropic);
    const id = await g.prepare();
    const all = await readEvents(
      await g.call("/v1/stream", { json: { route: "claude", messages: user }, headers: RESUMABLE }),
    );
    const after = await g.call(`/v1/streams/${id}`, { headers: { "last-event-id": String(all.length) } });
    expect(await readEvents(after)).toEqual([]);
    expect((await g.call(`/v1/streams/${id}`, { headers: { "last-event-id": "abc" } })).status).toBe(400);
  });

  it("cancel stops the upstream call (it sees the abort) and the log ends with the dialect's error", async () => {
    const g = await streamGateway(hangingAfterContent("only "));
    const id = await g.prepare();
    const first = await g.call("/v1/chat/completions", {
      json: { model: "claude", stream: true, messages: user },
      headers: RESUMABLE,
    });
    const head = await readEvents(first, 1);
    expect(head).toHaveLength(1);
    const cancelled = await g.call(`/v1/streams/${id}/cancel`, { method: "POST" });
    expect(await cancelled.json()).toEqual({ id, status: "cancelled" });
    await waitFor(() => g.calls[0]?.signal?.aborted === true);
    const events = await readEvents(await g.call(`/v1/streams/${id}`));
    const last = JSON.parse(events.at(-1)!.data) as { error?: { message: string } };
    expect(last.error).toBeDefined();
  });

  it("an object restart mid-call ends the log with an error event, never 'streaming' forever", async () => {
    // A stream stored as "streaming" with two events and no run in the object: what a restart leaves.
    const id = nextId();
    const stored = await runInDurableObject(streamStub(id), async (instance, state) => {
      const sql = state.storage.sql;
      (instance as unknown as { schema: { ensure(): void } }).schema.ensure();
      sql.exec(
        "INSERT INTO stream (id, owner, path, status, headers, retention_ms, created_at) VALUES (?, 'token:x', '/v1/messages', 'streaming', '[]', 60000, ?)",
        id,
        Date.now(),
      );
      sql.exec(
        "INSERT INTO events (seq, text, parts) VALUES (1, ?, 0)",
        'id: 1\nevent: message_start\ndata: {"type":"message_start"}\n\n',
      );
      sql.exec(
        "INSERT INTO events (seq, text, parts) VALUES (2, ?, 0)",
        'id: 2\nevent: ping\ndata: {"type":"ping"}\n\n',
      );
      // The object as it wakes after a restart: a new instance on this storage.
      const Restarted = instance.constructor as new (
        state: DurableObjectState,
        env: unknown,
      ) => StreamObjectBase;
      new Restarted(state, env);
      await state.blockConcurrencyWhile(async () => {});
      for (let tries = 0; tries < 100; tries++) {
        const row = sql.exec("SELECT status, finished_at FROM stream").toArray()[0]!;
        if (row.finished_at !== null) {
          return {
            status: String(row.status),
            texts: sql
              .exec("SELECT text FROM events ORDER BY seq")
              .toArray()
              .map((event) => String(event.text)),
          };
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return undefined;
    });
    expect(stored?.status).toBe("failed");
    const events = parseSse(stored!.texts.join(""));
    expect(events.map((event) => event.event)).toEqual(["message_start", "ping", "error"]);
    expect(events.map((event) => event.id)).toEqual(["1", "2", "3"]);
    expect(JSON.parse(events[2]!.data)).toMatchObject({
      type: "error",
      error: { message: expect.stringContaining("interrupted") },
    });
  });

  it("only the key that started a stream reads or cancels it", async () => {
    const g = await streamGateway(slowAnthropic);
    const admin = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      g.call(path, { ...init, headers: { authorization: `Bearer ${env.ADMIN_TOKENS}`, ...init.headers } });
    const make = async (name: string) =>
      ((await (await admin("/v1/admin/keys", { json: { name } })).json()) as { key: string }).key;
    const alice = await make("alice-stream");
    const bob = await make("bob-stream");
    const id = await g.prepare();
    const first = await g.call("/v1/stream", {
      json: { route: "claude", messages: user },
      headers: { ...RESUMABLE, authorization: `Bearer ${alice}` },
    });
    await readEvents(first);
    for (const token of [bob, TOKEN]) {
      const read = await g.call(`/v1/streams/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(404);
      const cancel = await g.call(`/v1/streams/${id}/cancel`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(cancel.status).toBe(404);
    }
    const mine = await g.call(`/v1/streams/${id}`, { headers: { authorization: `Bearer ${alice}` } });
    expect(mine.status).toBe(200);
    expect((await readEvents(mine)).at(-1)?.event).toBe("done");
  });

  it("without the header (or a resumable route) a stream is not resumable: no id, no ids", async () => {
    const g = await streamGateway(slowAnthropic);
    const response = await g.call("/v1/stream", { json: { route: "claude", messages: user } });
    expect(response.headers.get("x-modelwire-stream-id")).toBeNull();
    const frames = parseSse(await response.text()).filter((frame) => frame.data !== "");
    expect(frames.every((frame) => frame.id === undefined)).toBe(true);
  });

  it("a route with resumable: true runs its streams resumably without the header", async () => {
    const g = await streamGateway(slowAnthropic, {
      config: {
        routes: {
          claude: {
            protocol: "anthropic",
            model: "claude-sonnet-4-5",
            baseURL: "https://anthropic.upstream.test/v1",
            apiKeySecret: "ANTHROPIC_API_KEY",
            resumable: true,
          },
        },
      },
    });
    const id = await g.prepare();
    const response = await g.call("/v1/stream", { json: { route: "claude", messages: user } });
    expect(response.headers.get("x-modelwire-stream-id")).toBe(id);
    expect((await readEvents(response)).at(-1)?.event).toBe("done");
  });

  it("a reader following live through a cancel gets every last event (the log's end, not the status, ends it)", async () => {
    const g = await streamGateway(hangingAfterContent("only "));
    const id = await g.prepare();
    const first = await g.call("/v1/responses", {
      json: { model: "claude", stream: true, input: "hi" },
      headers: RESUMABLE,
    });
    await readEvents(first, 1);
    const live = await g.call(`/v1/streams/${id}`);
    const following = readEvents(live);
    await g.call(`/v1/streams/${id}/cancel`, { method: "POST" });
    const seen = await following;
    expect(seen.at(-1)?.event).toBe("response.failed");
    expect(seen).toEqual(await readEvents(await g.call(`/v1/streams/${id}`)));
  });

  it("an event longer than a storage row holds is kept in parts and replayed byte for byte", async () => {
    const long = "x".repeat(700_000);
    const g = await streamGateway((call) =>
      sseResponse(streamBody(anthropicFrames(anthropicEvents([long, long])), { signal: call.signal })),
    );
    const id = await g.prepare();
    const live = await g.call("/v1/stream", {
      json: { route: "claude", messages: user },
      headers: RESUMABLE,
    });
    const liveText = await live.text();
    const replay = await (await g.call(`/v1/streams/${id}`)).text();
    // The live answer's comments (keep-alives) are not events: the log has the events only.
    expect(replay).toBe(liveText.replace(/^: [^\n]*\n\n/gm, ""));
    const done = parseSse(replay).at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data.length).toBeGreaterThan(1_400_000);
  });

  it("after its retention a stream is gone: 404, and an unknown id stores nothing", async () => {
    const g = await streamGateway(slowAnthropic);
    const id = await g.prepare();
    await readEvents(
      await g.call("/v1/stream", { json: { route: "claude", messages: user }, headers: RESUMABLE }),
    );
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    expect((await g.call(`/v1/streams/${id}`)).status).toBe(404);
    expect((await g.call(`/v1/streams/${id}/cancel`, { method: "POST" })).status).toBe(404);
    const unknown = nextId();
    expect((await g.call(`/v1/streams/${unknown}`)).status).toBe(404);
    const tables = await runInDurableObject(streamStub(unknown), (_instance, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("the backstop alarm ends a stream whose run is gone, even if nobody reads it", async () => {
    const g = await streamGateway(hangingAfterContent("a"));
    const id = await g.prepare();
    await readEvents(
      await g.call("/v1/stream", { json: { route: "claude", messages: user }, headers: RESUMABLE }),
      1,
    );
    await runInDurableObject(streamStub(id), (instance) => {
      (instance as unknown as { run: unknown }).run = undefined;
    });
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    const events = await readEvents(await g.call(`/v1/streams/${id}`));
    expect(events.at(-1)?.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      message: expect.stringContaining("interrupted"),
    });
  });

  it("past 32 readers the oldest is closed to make room, never a 429", async () => {
    const g = await streamGateway(hangingAfterContent("a"));
    const id = await g.prepare();
    await readEvents(
      await g.call("/v1/stream", { json: { route: "claude", messages: user }, headers: RESUMABLE }),
      1,
    );
    const readers: Response[] = [];
    for (let index = 0; index < 33; index++) {
      const response = await g.call(`/v1/streams/${id}`);
      expect(response.status).toBe(200);
      readers.push(response);
    }
    // The first reader was closed: it ends after the events there are.
    const oldest = await readEvents(readers[0]!);
    expect(oldest.length).toBeGreaterThanOrEqual(1);
    await g.call(`/v1/streams/${id}/cancel`, { method: "POST" });
    for (const reader of readers.slice(1)) await reader.body?.cancel();
  });
});
