/** openaiChat(): session affinity. */
import { describe, expect, it } from "vitest";
import { collectStream, openaiChat, sessionAffinity, staticAffinity } from "../../src/index.ts";
import { fakeFetch, HI, TEXT_COMPLETION } from "./openai-chat.helpers.ts";

describe("openaiChat() session affinity", () => {
  it("sessionAffinity adds a header and a query parameter per call, from options.sessionId", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const provider = openaiChat({
      model: "qwen",
      endpoint: "vllm",
      baseURL: "http://router.local/v1",
      fetch,
      affinity: sessionAffinity({ header: "x-session-affinity", query: "session" }),
    });
    await provider.complete(HI, undefined, { sessionId: "conv-1" });
    await collectStream(provider.stream(HI, undefined, { sessionId: "conv 2/é" })).catch(() => undefined);
    await provider.complete(HI);
    await provider.complete(HI, undefined, { sessionId: "" });
    const [first, second, none, empty] = requests;
    expect(first!.headers.get("x-session-affinity")).toBe("conv-1");
    expect(new URL(first!.url).searchParams.get("session")).toBe("conv-1");
    expect(new URL(first!.url).pathname).toBe("/v1/chat/completions");
    expect(second!.headers.get("x-session-affinity")).toBe("conv 2/é");
    expect(new URL(second!.url).searchParams.get("session")).toBe("conv 2/é");
    for (const request of [none!, empty!]) {
      expect(request.headers.has("x-session-affinity")).toBe(false);
      expect(request.url).toBe("http://router.local/v1/chat/completions");
    }
  });

  it("header-only and query-only resolvers add only what they name", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    await openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: sessionAffinity({ header: "x-sticky" }),
    }).complete(HI, undefined, { sessionId: "s" });
    await openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: sessionAffinity({ query: "sid" }),
    }).complete(HI, undefined, { sessionId: "s" });
    expect(requests[0]!.url).toBe("http://localhost:8000/v1/chat/completions");
    expect(requests[0]!.headers.get("x-sticky")).toBe("s");
    expect(requests[1]!.url).toBe("http://localhost:8000/v1/chat/completions?sid=s");
    expect(requests[1]!.headers.has("x-sticky")).toBe(false);
  });

  it("staticAffinity sends the same value on every call, whatever the session", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: staticAffinity({ header: "x-replica", query: "replica", value: "r-3" }),
    });
    await provider.complete(HI);
    await provider.complete(HI, undefined, { sessionId: "a" });
    await provider.complete(HI, undefined, { sessionId: "b" });
    for (const request of requests) {
      expect(request.headers.get("x-replica")).toBe("r-3");
      expect(new URL(request.url).searchParams.get("replica")).toBe("r-3");
    }
  });

  it("a custom resolver is called per call with the session and model", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const seen: unknown[] = [];
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: (call) => {
        seen.push(call);
        return call.sessionId ? { headers: { "x-shard": String(call.sessionId.length % 4) } } : undefined;
      },
    });
    await provider.complete(HI, undefined, { sessionId: "abcde" });
    await provider.complete(HI);
    expect(seen).toEqual([
      { sessionId: "abcde", model: "m" },
      { sessionId: undefined, model: "m" },
    ]);
    expect(requests[0]!.headers.get("x-shard")).toBe("1");
    expect(requests[1]!.headers.has("x-shard")).toBe(false);
  });
});
