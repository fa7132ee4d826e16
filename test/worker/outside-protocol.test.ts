/**
 * The gateway over a protocol it does not build in: ndjson-chat (test/fixtures-code/ndjson-chat/, written
 * against `modelwire` and `modelwire/protocols` alone), registered with `createWorker({ providers: {
 * factories } })`. Its routes are checked by its factory's schema like any other (its own fields accepted,
 * a typo refused with a suggestion), and served through /v1/complete, /v1/stream and a fallback chain whose
 * first entry is the outside protocol — the upstreams faked at the fetch layer, in workerd.
 */
import { describe, expect, it } from "vitest";
import { ndjsonChatFactory } from "../fixtures-code/ndjson-chat/provider.ts";
import { ndjsonAnswer, ndjsonError, ndjsonStream } from "../fixtures-code/ndjson-chat/upstream.ts";
import { dataOf, gateway, OPENAI_BASE, OPENAI_KEY, openaiCompletion, parseSse } from "./helpers.ts";

const ND_BASE = "https://nd.upstream.test/v1";
const ND = { protocol: "ndjson-chat", model: "nd-1", baseURL: ND_BASE, tenant: "acme", region: "eu-1" };

const CONFIG = {
  routes: {
    nd: { ...ND, apiKeySecret: "OPENAI_API_KEY", safety: "strict" },
    "nd-first": {
      ...ND,
      triggers: ["overloaded"],
      fallback: [
        { protocol: "openai-chat", model: "gpt-4o", baseURL: OPENAI_BASE, apiKeySecret: "OPENAI_API_KEY" },
      ],
    },
    "nd-typo": { ...ND, tennant: "acme" },
  },
};

const providers = { factories: { "ndjson-chat": ndjsonChatFactory } };
const HI = [{ role: "user", content: "hi" }];

describe("a route on an outside protocol", () => {
  it("POST /v1/complete: the protocol's request upstream, with its own fields; the neutral response back", async () => {
    const { call, calls } = gateway(() => ndjsonAnswer("Hello from outside"), {
      config: CONFIG,
      providers,
      log: () => {},
    });
    const response = await call("/v1/complete", { json: { route: "nd", messages: HI } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      provider: "ndjson-chat",
      message: { role: "assistant", content: "Hello from outside", native: { protocol: "ndjson-chat" } },
      usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 3 },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`${ND_BASE}/chat`);
    expect(calls[0]!.headers.get("authorization")).toBe(`Bearer ${OPENAI_KEY}`);
    expect(calls[0]!.headers.get("x-tenant")).toBe("acme");
    expect(calls[0]!.headers.get("x-safety")).toBe("strict");
    expect(calls[0]!.body).toEqual({
      model: "nd-1",
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
    });
  });

  it("POST /v1/stream: text deltas as the protocol's lines arrive, then done", async () => {
    const { call, calls } = gateway(() => ndjsonStream(["Hello ", "from ", "outside"]), {
      config: CONFIG,
      providers,
      log: () => {},
    });
    const response = await call("/v1/stream", { json: { route: "nd", messages: HI } });
    expect(response.status).toBe(200);
    const frames = parseSse(await response.text());
    const texts = frames
      .filter((frame) => frame.event === "text-delta")
      .map((frame) => (JSON.parse(frame.data) as { text: string }).text);
    expect(texts.join("")).toBe("Hello from outside");
    expect(frames.at(-1)?.event).toBe("done");
    expect(dataOf(frames.slice(-1))[0]).toMatchObject({
      type: "done",
      response: { message: { content: "Hello from outside" }, stopReason: "stop" },
    });
    expect(calls[0]!.body.stream).toBe(true);
  });

  it("a chain whose first entry is the outside protocol falls through on its overload", async () => {
    const { call, calls } = gateway(
      (upstreamCall) =>
        upstreamCall.url.startsWith(ND_BASE)
          ? ndjsonError(503, "busy", "busy")
          : Response.json(openaiCompletion("gpt-4o", "from openai")),
      { config: CONFIG, providers, log: () => {} },
    );
    const response = await call("/v1/complete", { json: { route: "nd-first", messages: HI } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      message: { content: "from openai" },
      servedBy: { index: 1, failures: [{ kind: "overloaded", provider: "ndjson-chat" }] },
    });
    expect(calls.map((upstreamCall) => upstreamCall.host)).toEqual([
      "nd.upstream.test",
      "openai.upstream.test",
    ]);
  });

  it("its routes are validated by its factory's schema: a typo is a 500 naming the field; /v1/models lists the others", async () => {
    const logged: string[] = [];
    const { call, calls } = gateway(() => ndjsonAnswer("unused"), {
      config: CONFIG,
      providers,
      log: (line) => logged.push(line),
    });
    const broken = await call("/v1/complete", { json: { route: "nd-typo", messages: HI } });
    expect(broken.status).toBe(500);
    expect(JSON.stringify(await broken.json())).toContain(
      'routes.nd-typo.tennant: unknown setting; did you mean \\"tenant\\"?',
    );
    expect(calls).toHaveLength(0);
    const models = (await (await call("/v1/models")).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id).sort()).toEqual(["nd", "nd-first"]);
    expect(logged.join("\n")).toContain("nd-typo");
  });

  it("without the factory the route is refused, saying how to register the protocol", async () => {
    const { call } = gateway(() => ndjsonAnswer("unused"), { config: CONFIG, log: () => {} });
    const response = await call("/v1/complete", { json: { route: "nd", messages: HI } });
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain('factories: { \\"ndjson-chat\\": … }');
  });
});
