/**
 * Session affinity through the SessionObject Durable Object, inside workerd: a pool route of two
 * OpenAI-compatible members (told apart by base URL), a session pinned to one member on first use, kept
 * there call after call, re-pinned to the other member when its member fails before any output; GET and
 * DELETE /v1/sessions/:id.
 */
import { describe, expect, it } from "vitest";
import { sessionAffinity } from "../../src/providers/affinity.ts";
import {
  gateway,
  MEMBER_A,
  MEMBER_B,
  openaiCompletion,
  openaiFrames,
  readSse,
  sseResponse,
  streamBody,
  type UpstreamCall,
} from "./helpers.ts";

const MODEL = "Qwen/Qwen3-8B";
const HOSTS = [new URL(MEMBER_A).host, new URL(MEMBER_B).host] as const;
const MESSAGES = [{ role: "user", content: "Hello?" }];

interface Pin {
  route: string;
  member: string;
  failovers: number;
  pinnedAt: number;
  updatedAt: number;
}

/**
 * Two vLLM replicas. Each answers with its own name, so the client can tell who served it; `failing` maps
 * a host to the error it answers with instead.
 */
function pool(options: Parameters<typeof gateway>[1] = {}) {
  const failing = new Map<string, () => Response>();
  const { call, calls } = gateway((upstream: UpstreamCall) => {
    const fail = failing.get(upstream.host);
    if (fail) return fail();
    const name = upstream.host.split(".")[0]!;
    if (upstream.body.stream === true)
      return sseResponse(streamBody(openaiFrames(MODEL, [`served by ${name}`])));
    return Response.json(openaiCompletion(MODEL, `served by ${name}`));
  }, options);
  const servedBy = (from: number) =>
    calls.slice(from).map((upstream) => HOSTS.indexOf(upstream.host as never));
  /** The session's pins; undefined for a session never pinned (a 404 that stores nothing). */
  const pins = async (session: string): Promise<Pin[] | undefined> => {
    const response = await call(`/v1/sessions/${session}`);
    if (response.status === 404) {
      expect(await response.json()).toMatchObject({ error: { kind: "not_found" } });
      return undefined;
    }
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; pins: Pin[] };
    expect(body.id).toBe(session);
    return body.pins;
  };
  /** One call of each kind, in turn; returns the text the member answered with. */
  const ask = async (kind: number, session: { header?: string; body?: string }): Promise<Response> => {
    const headers = session.header ? { "x-session-id": session.header } : undefined;
    switch (kind % 3) {
      case 0:
        return call("/v1/complete", {
          headers,
          json: { route: "pool", messages: MESSAGES, ...(session.body ? { sessionId: session.body } : {}) },
        });
      case 1:
        return call("/v1/stream", {
          headers,
          json: { route: "pool", messages: MESSAGES, ...(session.body ? { sessionId: session.body } : {}) },
        });
      default:
        return call("/v1/chat/completions", { headers, json: { model: "pool", messages: MESSAGES } });
    }
  };
  return { call, calls, failing, servedBy, pins, ask };
}

const overloaded = () =>
  Response.json(
    { object: "error", message: "Server overloaded", type: "ServiceUnavailableError", code: 503 },
    {
      status: 503,
    },
  );

describe("session affinity on a pool route", () => {
  it("the same x-session-id goes to the same member every time, and the pin is visible", async () => {
    const { servedBy, pins, ask } = pool();
    for (let index = 0; index < 6; index++) {
      const response = await ask(index, { header: "affinity-header-1" });
      expect(response.status).toBe(200);
      await response.text();
    }
    const members = servedBy(0);
    expect(members).toHaveLength(6);
    expect(new Set(members).size).toBe(1);
    expect(await pins("affinity-header-1")).toEqual([
      {
        route: "pool",
        member: String(members[0]),
        failovers: 0,
        pinnedAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    ]);
  });

  it("a body sessionId pins the same way (and wins over the header)", async () => {
    const { servedBy, pins, ask } = pool();
    for (let index = 0; index < 4; index++) {
      // Only /v1/complete and /v1/stream take a body sessionId.
      const response = await ask(index % 2, { body: "affinity-body-1", header: `other-${index}` });
      expect(response.status).toBe(200);
      await response.text();
    }
    const members = servedBy(0);
    expect(new Set(members).size).toBe(1);
    expect(await pins("affinity-body-1")).toMatchObject([
      { route: "pool", member: String(members[0]), failovers: 0 },
    ]);
    // The headers were not used as session ids: that session was never pinned.
    expect(await pins("other-0")).toBeUndefined();
  });

  it("different sessions spread over both members, each staying on its own", async () => {
    const { calls, servedBy, ask } = pool();
    const first = new Map<string, number>();
    for (let index = 0; index < 16; index++) {
      const session = `spread-${index}`;
      const from = calls.length;
      await (await ask(0, { header: session })).text();
      first.set(session, servedBy(from)[0]!);
    }
    expect(new Set(first.values())).toEqual(new Set([0, 1]));
    for (const [session, member] of first) {
      const from = calls.length;
      await (await ask(1, { header: session })).text();
      expect(servedBy(from)).toEqual([member]);
    }
  });

  it("the pinned member failing before output re-pins the session; later calls stay on the new member", async () => {
    const { failing, servedBy, pins, ask, calls, call } = pool();
    const session = "affinity-failover-1";
    await (await ask(0, { header: session })).text();
    const pinned = servedBy(0)[0]!;
    const other = 1 - pinned;

    failing.set(HOSTS[pinned]!, overloaded);
    const from = calls.length;
    const response = await ask(0, { header: session });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ message: { content: `served by member-${"ab"[other]}` } });
    // The pinned member was tried first, then the other one.
    expect(servedBy(from)).toEqual([pinned, other]);
    expect(await pins(session)).toMatchObject([{ route: "pool", member: String(other), failovers: 1 }]);

    // The old member is healthy again: the session stays where it was moved.
    failing.clear();
    const after = calls.length;
    for (let index = 0; index < 3; index++) await (await ask(index, { header: session })).text();
    expect(servedBy(after)).toEqual([other, other, other]);
    expect(await pins(session)).toMatchObject([{ member: String(other), failovers: 1 }]);

    // DELETE forgets the session, storage and all: it reads as never pinned.
    const deleted = await call(`/v1/sessions/${session}`, { method: "DELETE" });
    expect(await deleted.json()).toEqual({ id: session, cleared: 1 });
    expect(await pins(session)).toBeUndefined();
    // The next call pins afresh, by the session's hash: its first member again.
    const fresh = calls.length;
    await (await ask(0, { header: session })).text();
    expect(servedBy(fresh)).toEqual([pinned]);
    expect(await pins(session)).toMatchObject([{ member: String(pinned), failovers: 0 }]);
  });

  it("a stream whose member fails before output (429) fails over too, and the SSE comes from the other member", async () => {
    const { failing, servedBy, pins, ask, calls } = pool();
    const session = "affinity-failover-stream";
    await (await ask(1, { header: session })).text();
    const pinned = servedBy(0)[0]!;
    failing.set(HOSTS[pinned]!, () =>
      Response.json(
        { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
        {
          status: 429,
        },
      ),
    );
    const from = calls.length;
    const response = await ask(1, { header: session });
    expect(response.status).toBe(200);
    const frames = await readSse(response);
    expect(frames.at(-1)!.event).toBe("done");
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({
      response: { message: { content: `served by member-${"ab"[1 - pinned]}` } },
    });
    expect(servedBy(from)).toEqual([pinned, 1 - pinned]);
    expect(await pins(session)).toMatchObject([{ member: String(1 - pinned), failovers: 1 }]);
  });

  it("both members failing: the client gets the error status; a non-retryable error does not re-pin", async () => {
    const { failing, servedBy, pins, ask, calls } = pool();
    const session = "affinity-no-failover";
    await (await ask(0, { header: session })).text();
    const pinned = servedBy(0)[0]!;

    failing.set(HOSTS[pinned]!, () =>
      Response.json(
        { object: "error", message: "bad request", type: "BadRequestError", code: 400 },
        { status: 400 },
      ),
    );
    let from = calls.length;
    const bad = await ask(0, { header: session });
    expect(bad.status).toBe(400);
    expect(servedBy(from)).toEqual([pinned]);
    expect(await pins(session)).toMatchObject([{ member: String(pinned), failovers: 0 }]);

    failing.set(HOSTS[0], overloaded);
    failing.set(HOSTS[1], overloaded);
    from = calls.length;
    const down = await ask(0, { header: session });
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ error: { kind: "overloaded" } });
    expect(servedBy(from)).toEqual([pinned, 1 - pinned]);
  });

  it("a member cut after output does not fail over: the SSE ends with an error event, the pin stays", async () => {
    const { failing, servedBy, pins, ask, calls } = pool();
    const session = "affinity-cut";
    await (await ask(1, { header: session })).text();
    const pinned = servedBy(0)[0]!;
    failing.set(HOSTS[pinned]!, () =>
      sseResponse(streamBody(openaiFrames(MODEL, ["partial ", "answer"]).slice(0, 2))),
    );
    const from = calls.length;
    const frames = await readSse(await ask(1, { header: session }));
    expect(frames.at(-1)!.event).toBe("error");
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ kind: "truncated", partialOutput: true });
    expect(servedBy(from)).toEqual([pinned]);
    expect(await pins(session)).toMatchObject([{ member: String(pinned), failovers: 0 }]);
  });

  it("the session id reaches the pinned member as its affinity token, from the header or the body, on every route", async () => {
    const { calls, ask } = pool({
      providers: { affinity: sessionAffinity({ header: "x-session-affinity" }) },
    });
    for (let index = 0; index < 3; index++) await (await ask(index, { header: "affinity-token-h" })).text();
    for (let index = 0; index < 2; index++) await (await ask(index, { body: "affinity-token-b" })).text();
    expect(calls.map((upstream) => upstream.headers.get("x-session-affinity"))).toEqual([
      "affinity-token-h",
      "affinity-token-h",
      "affinity-token-h",
      "affinity-token-b",
      "affinity-token-b",
    ]);
  });
});
