import { describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { type Provider, ValidationError } from "../../src/index.ts";
import {
  type CooldownStore,
  createProvider,
  type ProviderBuild,
  type ProviderConfig,
  type ProviderFactory,
} from "../../src/substrate/index.ts";
import { FakeProvider } from "../../src/testing.ts";
import { HI } from "./helpers.ts";

const KEY = "config-secret-key-7f3e9a";

interface Captured {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

const ANTHROPIC_OK = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-6",
  content: [{ type: "text", text: "from claude" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

const OPENAI_OK = {
  id: "c1",
  object: "chat.completion",
  model: "gpt-4.1",
  choices: [{ index: 0, message: { role: "assistant", content: "from openai" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** A fetch answering by URL, recording requests. */
function router(answer: (captured: Captured) => Response) {
  const requests: Captured[] = [];
  const fetchStub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    };
    requests.push(captured);
    return answer(captured);
  }) as typeof fetch;
  return { fetch: fetchStub, requests };
}

function refusal(config: unknown, options: Parameters<typeof createProvider>[1] = {}): ValidationError {
  try {
    createProvider(config, { warn: () => {}, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error("expected a ValidationError");
}

describe("createProvider: built-in protocols", () => {
  it("builds anthropic from plain JSON", async () => {
    const { fetch, requests } = router(() => Response.json(ANTHROPIC_OK));
    const config = JSON.parse(
      `{"protocol":"anthropic","model":"claude-sonnet-4-6","apiKey":"${KEY}","headers":{"x-trace":"t"},"betas":["b1"]}`,
    );
    const provider = createProvider(config, { fetch });
    expect([provider.name, provider.model, provider.protocol]).toEqual([
      "anthropic",
      "claude-sonnet-4-6",
      "anthropic-messages",
    ]);
    expect((await provider.complete(HI)).message.content).toBe("from claude");
    expect(requests[0]!.url).toBe("https://api.anthropic.com/v1/messages");
    expect(requests[0]!.headers.get("x-api-key")).toBe(KEY);
    expect(requests[0]!.headers.get("x-trace")).toBe("t");
    expect(requests[0]!.headers.get("anthropic-beta")).toBe("b1");
  });

  it("an absent or empty protocol is the documented default (openai-chat), quietly", () => {
    const warn = vi.fn();
    for (const protocol of [undefined, null, "", "  "]) {
      const provider = createProvider({ protocol, model: "gpt-4.1", apiKey: KEY }, { warn });
      expect(provider.protocol).toBe("openai-chat");
    }
    expect(warn).not.toHaveBeenCalled();
  });

  it("builds openai-chat for a self-hosted endpoint without a key, with profile overrides", async () => {
    const { fetch, requests } = router(() => Response.json(OPENAI_OK));
    const provider = createProvider(
      {
        protocol: "openai-chat",
        model: "Qwen/Qwen3-8B",
        baseURL: "http://gpu-1:8000/v1",
        endpoint: { kind: "vllm", textToolCalls: "hermes" },
      },
      { fetch },
    );
    expect(provider.name).toBe("vllm");
    await provider.complete(HI, undefined, { maxTokens: 10 });
    expect(requests[0]!.url).toBe("http://gpu-1:8000/v1/chat/completions");
    expect(requests[0]!.headers.get("authorization")).toBeNull();
    expect(requests[0]!.body).toMatchObject({ max_tokens: 10 });
  });

  it("anthropic profile overrides apply on top of the model's profile", async () => {
    const { fetch, requests } = router(() => Response.json(ANTHROPIC_OK));
    await createProvider(
      { protocol: "anthropic", model: "claude-sonnet-4-6", apiKey: KEY, profile: { defaultMaxTokens: 321 } },
      { fetch },
    ).complete(HI);
    expect(requests[0]!.body.max_tokens).toBe(321);
  });

  it("anthropic contextManagement goes into every request, with its beta flag; a malformed one is refused", async () => {
    const { fetch, requests } = router(() => Response.json(ANTHROPIC_OK));
    const edits = [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 150_000 } }];
    await createProvider(
      { protocol: "anthropic", model: "claude-sonnet-4-6", apiKey: KEY, contextManagement: { edits } },
      { fetch },
    ).complete(HI);
    expect(requests[0]!.body.context_management).toStrictEqual({ edits });
    expect(requests[0]!.headers.get("anthropic-beta")).toBe("compact-2026-01-12");
    const error = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-6",
      apiKey: KEY,
      contextManagement: { edits: [{ trigger: {} }] },
    });
    expect(error.issues[0]!.path).toBe("contextManagement.edits[0].type");
  });

  it("accepts wire-protocol names and any case for the protocol", () => {
    expect(
      createProvider({ protocol: "anthropic-messages", model: "claude-sonnet-4-6", apiKey: KEY }).name,
    ).toBe("anthropic");
    expect(createProvider({ protocol: "Anthropic", model: "claude-sonnet-4-6", apiKey: KEY }).name).toBe(
      "anthropic",
    );
  });
});

describe("createProvider: refusals name the field", () => {
  it("a misspelt protocol is warned about and refused, with the closest name — never another protocol", () => {
    const warn = vi.fn();
    const error = refusal({ protocol: "anthropc", model: "claude-sonnet-4-6", apiKey: KEY }, { warn });
    expect(error.issues[0]!.path).toBe("protocol");
    expect(error.message).toMatch(/^protocol: unknown protocol "anthropc"; did you mean "anthropic"\?/);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('did you mean "anthropic"?');
  });

  it("a protocol of the wrong type is refused", () => {
    const error = refusal({ protocol: 42, model: "m" });
    expect(error.issues[0]!.path).toBe("protocol");
    expect(error.message).toContain("must be a string");
  });

  it("a misspelt protocol deep in a chain is named by its path", () => {
    const error = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-6",
      apiKey: KEY,
      fallback: [
        { protocol: "openai-chat", model: "gpt-4.1", apiKey: KEY },
        { protocol: "opnai-chat", model: "gpt-4.1", apiKey: KEY },
      ],
    });
    expect(error.issues[0]!.path).toBe("fallback[1].protocol");
    expect(error.message).toContain('did you mean "openai-chat"?');
  });

  it("a known protocol with no factory (a build without it, or one removed) asks for its factory", () => {
    for (const protocol of ["openai-responses", "bedrock"] as const) {
      const error = refusal({ protocol, model: "m" }, { factories: { [protocol]: undefined } });
      expect(error.issues[0]!.path).toBe("protocol");
      expect(error.message).toContain(`factories: { "${protocol}"`);
    }
  });

  it("an unknown key is refused with a suggestion; a missing model is named", () => {
    const typo = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-6",
      apiKey: KEY,
      basURL: "http://x",
    });
    expect(typo.issues).toEqual([{ path: "basURL", message: 'unknown setting; did you mean "baseURL"?' }]);
    const nested = refusal({
      model: "gpt-4.1",
      apiKey: KEY,
      fallback: [{ model: "gpt-4.1", apiKey: KEY, retry: { atempts: 2 } }],
    });
    expect(nested.issues[0]!.path).toBe("fallback[0].retry.atempts");
    expect(refusal({ protocol: "anthropic", apiKey: KEY }).issues[0]!.path).toBe("model");
    expect(refusal("anthropic").issues[0]!.path).toBe("config");
  });

  it("a setting of another protocol is refused, not ignored", () => {
    const error = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-6",
      apiKey: KEY,
      endpoint: "vllm",
    });
    expect(error.issues[0]).toEqual({
      path: "endpoint",
      message: 'not a setting of protocol "anthropic" (only openai-chat)',
    });
    expect(refusal({ model: "gpt-4.1", apiKey: KEY, defaultTriggers: ["any"] }).issues[0]!.path).toBe(
      "defaultTriggers",
    );
  });

  it("errors raised by the provider itself get the entry's path", () => {
    const error = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-6",
      apiKey: KEY,
      fallback: [{ protocol: "openai-chat", model: "gpt-4.1" }],
    });
    expect(error.issues[0]!.path).toBe("fallback[0].apiKey");
    expect(refusal({ protocol: "anthropic", model: "claude-sonnet-4-6" }).issues[0]!.path).toBe("apiKey");
    expect(refusal({ model: "m", apiKey: KEY, baseURL: "not a url" }).issues[0]!.path).toBe("baseURL");
  });

  it("no refusal quotes the API key", () => {
    const configs: unknown[] = [
      { protocol: "anthropc", model: "m", apiKey: KEY },
      { protocol: "anthropic", model: "m", apiKey: KEY, basURL: KEY },
      { model: "m", apiKey: KEY, baseURL: "::" },
      { model: "m", apiKey: KEY, headers: { authorization: 5 } },
      { model: "m", apiKey: KEY, retry: { attempts: KEY } },
      { protocol: "bedrock", model: "m", apiKey: KEY },
    ];
    for (const config of configs) {
      const error = refusal(config);
      expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain(KEY);
    }
  });
});

describe("createProvider: factories", () => {
  it("a registered factory builds openai-responses / bedrock with the validated config and the run-time pieces", async () => {
    const seen: { config: ProviderConfig; path: string; fetch: unknown }[] = [];
    const factory: ProviderBuild = (config, context) => {
      seen.push({ config, path: context.path, fetch: context.fetch });
      return new FakeProvider({
        name: config.protocol ?? "?",
        model: config.model,
        script: [{ text: "from factory" }],
      });
    };
    const fetchStub = (async () => Response.json({})) as typeof fetch;
    const provider = createProvider(
      {
        protocol: "bedrock",
        model: "anthropic.claude-sonnet-4-6",
        region: "eu-west-1",
        settings: { profile: "x" },
      },
      { factories: { bedrock: factory, "openai-responses": factory }, fetch: fetchStub },
    );
    expect((await provider.complete(HI)).message.content).toBe("from factory");
    expect(seen[0]).toEqual({
      config: {
        protocol: "bedrock",
        model: "anthropic.claude-sonnet-4-6",
        region: "eu-west-1",
        settings: { profile: "x" },
      },
      path: "",
      fetch: fetchStub,
    });
  });

  it("a factory can replace a built-in one", async () => {
    const provider = createProvider(
      { protocol: "anthropic", model: "claude-sonnet-4-6" },
      {
        factories: {
          anthropic: (config) => new FakeProvider({ model: config.model, script: [{ text: "mine" }] }),
        },
      },
    );
    expect((await provider.complete(HI)).message.content).toBe("mine");
  });
});

describe("createProvider: retry and fallback from config", () => {
  it("a chain: the primary's overload falls through to the next entry; servedBy says so", async () => {
    const { fetch, requests } = router(({ url }) =>
      url.includes("anthropic")
        ? Response.json(
            { type: "error", error: { type: "overloaded_error", message: "busy" } },
            { status: 529 },
          )
        : Response.json(OPENAI_OK),
    );
    const chain = createProvider(
      {
        protocol: "anthropic",
        model: "claude-sonnet-4-6",
        apiKey: KEY,
        fallback: [{ protocol: "openai-chat", model: "gpt-4.1", apiKey: KEY }],
      },
      { fetch },
    );
    const response = await chain.complete(HI);
    expect(response.message.content).toBe("from openai");
    expect(response.servedBy).toMatchObject({
      index: 1,
      provider: "openai",
      failures: [{ kind: "overloaded", provider: "anthropic", index: 0 }],
    });
    expect(requests.map((request) => new URL(request.url).host)).toEqual([
      "api.anthropic.com",
      "api.openai.com",
    ]);
  });

  it("triggers from config: [] is a barrier; retry from config retries before falling through", async () => {
    const { fetch, requests } = router(({ url }) =>
      url.includes("anthropic")
        ? Response.json(
            { type: "error", error: { type: "overloaded_error", message: "busy" } },
            { status: 529 },
          )
        : Response.json(OPENAI_OK),
    );
    const sleep = vi.fn(async () => {});
    const barrier = createProvider(
      {
        protocol: "anthropic",
        model: "claude-sonnet-4-6",
        apiKey: KEY,
        retry: { attempts: 2 },
        triggers: [],
        fallback: [{ protocol: "openai-chat", model: "gpt-4.1", apiKey: KEY }],
      },
      { fetch, sleep, random: () => 0 },
    );
    await expect(barrier.complete(HI)).rejects.toMatchObject({ kind: "overloaded" });
    expect(requests).toHaveLength(2);
    expect(sleep).toHaveBeenCalledTimes(1);
  });

  it("a chain's cooldown uses the host's store and clock", async () => {
    const { fetch } = router(({ url }) =>
      url.includes("anthropic")
        ? Response.json(
            { type: "error", error: { type: "overloaded_error", message: "busy" } },
            { status: 529 },
          )
        : Response.json(OPENAI_OK),
    );
    const writes: [string, number][] = [];
    const store: CooldownStore = {
      get: () => undefined,
      set: (key, until) => void writes.push([key, until]),
    };
    const chain: Provider = createProvider(
      {
        protocol: "anthropic",
        model: "claude-sonnet-4-6",
        apiKey: KEY,
        cooldown: { ms: 10_000 },
        fallback: [{ protocol: "openai-chat", model: "gpt-4.1", apiKey: KEY }],
      },
      { fetch, cooldownStore: store, now: () => 5 },
    );
    await chain.complete(HI);
    expect(writes).toEqual([["0:anthropic:claude-sonnet-4-6", 10_005]]);
  });
});

describe("createProvider: built-in openai-responses", () => {
  it("builds an openaiResponses() provider from config", async () => {
    const calls: string[] = [];
    const provider = createProvider(
      { protocol: "openai-responses", model: "gpt-5-mini", apiKey: KEY, organization: "org-1" },
      {
        fetch: (async (url: RequestInfo | URL, init?: RequestInit) => {
          calls.push(`${String(url)} ${new Headers(init?.headers).get("openai-organization")}`);
          return new Response(JSON.stringify({ error: { message: "nope", type: "invalid_request_error" } }), {
            status: 400,
          });
        }) as typeof fetch,
      },
    );
    expect(provider.protocol).toBe("openai-responses");
    await expect(provider.complete([{ role: "user", content: "hi" }])).rejects.toMatchObject({
      kind: "bad_request",
    });
    expect(calls).toEqual(["https://api.openai.com/v1/responses org-1"]);
  });
});

describe("createProvider: built-in bedrock", () => {
  it("builds bedrock() from config: bearer key, Converse by default, endpoint from baseURL", async () => {
    const seen: Array<{ url: string; authorization: string | null }> = [];
    const provider = createProvider(
      {
        protocol: "bedrock",
        model: "amazon.nova-pro-v1:0",
        region: "us-east-1",
        apiKey: "bedrock-key-123456",
        baseURL: "http://127.0.0.1:9",
      },
      {
        fetch: (async (url: RequestInfo | URL, init?: RequestInit) => {
          seen.push({ url: String(url), authorization: new Headers(init?.headers).get("authorization") });
          return Response.json(
            { message: "nope" },
            { status: 400, headers: { "x-amzn-errortype": "ValidationException" } },
          );
        }) as typeof fetch,
      },
    );
    const error = await provider
      .complete([{ role: "user", content: "hi" }])
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "bad_request" });
    expect(seen).toEqual([
      {
        url: "http://127.0.0.1:9/model/amazon.nova-pro-v1%3A0/converse",
        authorization: "Bearer bedrock-key-123456",
      },
    ]);
    expect(JSON.stringify(error)).not.toContain("bedrock-key-123456");
  });

  it("hands options.logger to bedrock (its auth choice); without one, nothing is printed", () => {
    const config = { protocol: "bedrock", model: "amazon.nova-pro-v1:0", region: "us-east-1", apiKey: KEY };
    const lines: string[] = [];
    createProvider(config, { logger: (line) => lines.push(line) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^modelwire bedrock converse amazon.nova-pro-v1:0 in us-east-1: auth .*= bearer API key from settings\.apiKey$/,
    );
    expect(lines[0]).not.toContain(KEY);
    const spies = (["log", "info", "warn", "error"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      createProvider(config);
      expect(() => createProvider({ protocol: "anthropc", model: "m", apiKey: KEY })).toThrow(
        ValidationError,
      );
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("refuses a bad settings.api, naming it", () => {
    expect(
      refusal({
        protocol: "bedrock",
        model: "m",
        region: "us-east-1",
        apiKey: "k",
        settings: { api: "chat" },
      }).issues[0]!.path,
    ).toBe("settings.api");
  });
});

describe("createProvider: settings belong to bedrock only", () => {
  it("refuses `settings` on another protocol instead of ignoring it", () => {
    const error = refusal({
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: KEY,
      settings: { api: "invoke" },
    });
    expect(error.issues[0]!.path).toBe("settings");
  });
});

describe("createProvider: an open registry", () => {
  /** A protocol from outside: its own fields, one of them required, one shared by name with bedrock's. */
  const fields = {
    tenant: z.string().check(z.minLength(1)),
    region: z.optional(z.string()),
    safety: z.optional(z.enum(["strict", "relaxed"])),
  };
  const seen: unknown[] = [];
  const outside: ProviderFactory<typeof fields> = {
    schema: fields,
    build: (config) => {
      seen.push(config);
      return new FakeProvider({ name: "outside", model: config.model, script: [{ text: config.tenant }] });
    },
  };

  it("builds a protocol it does not build in, with its own fields checked by its own schema", async () => {
    seen.length = 0;
    const config = {
      protocol: "outside",
      model: "m-1",
      apiKey: KEY,
      tenant: "acme",
      safety: "strict",
      retry: { attempts: 2 },
    };
    const provider = createProvider(config, { factories: { outside } });
    expect((await provider.complete(HI)).message.content).toBe("acme");
    // Checked, and handed over as it was: no field added, none left out.
    expect(seen).toEqual([config]);
  });

  it("its schema's refusals name the field; a missing required field is named", () => {
    const options = { factories: { outside } };
    expect(
      refusal({ protocol: "outside", model: "m", safety: "loose", tenant: "a" }, options).issues,
    ).toEqual([{ path: "safety", message: 'expected "strict" or "relaxed"' }]);
    expect(refusal({ protocol: "outside", model: "m" }, options).issues[0]!.path).toBe("tenant");
    expect(
      refusal({ model: "m", fallback: [{ protocol: "outside", model: "m", tenant: 5 }] }, options).issues[0]!
        .path,
    ).toBe("fallback[0].tenant");
  });

  it("fields of one protocol are refused on another, naming every protocol that takes them", () => {
    const options = { factories: { outside } };
    expect(refusal({ protocol: "anthropic", model: "m", apiKey: KEY, tenant: "a" }, options).issues).toEqual([
      { path: "tenant", message: 'not a setting of protocol "anthropic" (only outside)' },
    ]);
    expect(refusal({ protocol: "anthropic", model: "m", apiKey: KEY, region: "x" }, options).issues).toEqual([
      { path: "region", message: 'not a setting of protocol "anthropic" (only bedrock, outside)' },
    ]);
    expect(refusal({ protocol: "outside", model: "m", tenant: "a", betas: [] }, options).issues).toEqual([
      { path: "betas", message: 'not a setting of protocol "outside" (only anthropic, bedrock, vertex)' },
    ]);
    expect(refusal({ protocol: "anthropic", model: "m", apiKey: KEY, organization: "o" }).issues).toEqual([
      {
        path: "organization",
        message: 'not a setting of protocol "anthropic" (only openai-chat, openai-responses)',
      },
    ]);
    expect(refusal({ protocol: "outside", model: "m", tenant: "a", tenat: "b" }, options).issues).toEqual([
      { path: "tenat", message: 'unknown setting; did you mean "tenant"?' },
    ]);
  });

  it("a misspelt outside protocol is refused with the closest registered name", () => {
    const warn = vi.fn();
    const error = refusal({ protocol: "outsid", model: "m", tenant: "a" }, { factories: { outside }, warn });
    expect(error.message).toMatch(/^protocol: unknown protocol "outsid"; did you mean "outside"\?/);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("a schema that declares a shared field is refused at registration: shared fields are checked once", () => {
    const greedy: ProviderFactory = { schema: { model: z.string() }, build: outside.build as never };
    expect(refusal({ model: "m" }, { factories: { greedy } }).issues).toEqual([
      {
        path: "factories.greedy.schema.model",
        message: "a field every protocol shares, checked by createProvider: leave it out of the schema",
      },
    ]);
  });

  it("a bare build function under a new name is a protocol with no fields of its own", async () => {
    const plain = (config: ProviderConfig) =>
      new FakeProvider({ model: config.model, script: [{ text: "plain" }] });
    expect(
      (await createProvider({ protocol: "plain", model: "m" }, { factories: { plain } }).complete(HI)).message
        .content,
    ).toBe("plain");
    expect(
      refusal({ protocol: "plain", model: "m", tenant: "a" }, { factories: { plain } }).issues[0]!.path,
    ).toBe("tenant");
  });
});
