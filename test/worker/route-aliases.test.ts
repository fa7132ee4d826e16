/**
 * Route `aliases` inside workerd: a route answers to each of its aliases (real model ids such as
 * `claude-sonnet-4-5-20250929`, which clients send) on every model route; `/v1/models` lists them; an
 * alias that clashes with a route name or another route's alias is a configuration problem naming
 * `routes.<name>.aliases[i]`, and a call by an alias of a route that is not served is that route's 500.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_BASE,
  ANTHROPIC_KEY,
  anthropicMessage,
  gateway,
  gatewayEnv,
  OPENAI_BASE,
  openaiCompletion,
  TOKEN,
  type UpstreamHandler,
} from "./helpers.ts";

const MESSAGES = [{ role: "user", content: "hi" }];

const CLAUDE = {
  protocol: "anthropic",
  model: "claude-sonnet-4-5",
  baseURL: ANTHROPIC_BASE,
  apiKeySecret: "ANTHROPIC_API_KEY",
};
const GPT = {
  protocol: "openai-chat",
  model: "gpt-4o",
  baseURL: OPENAI_BASE,
  apiKeySecret: "OPENAI_API_KEY",
};

/** Each upstream answers with its own text, so who served a call is in the answer. */
const upstream: UpstreamHandler = (call) =>
  call.url.startsWith(ANTHROPIC_BASE)
    ? Response.json(anthropicMessage("from claude"))
    : Response.json(openaiCompletion("gpt-4o", "from gpt"));

function aliased(routes: Record<string, unknown>, log: string[] = []) {
  return gateway(upstream, { config: { routes }, log: (line) => log.push(line) });
}

describe("a route's aliases", () => {
  const routes = {
    claude: { ...CLAUDE, aliases: ["claude-sonnet-4-5-20250929", "sonnet"] },
    gpt: GPT,
  };

  it("a call by an alias is served by its route, on /v1/complete and /v1/chat/completions", async () => {
    const { call, calls } = aliased(routes);
    for (const name of ["claude-sonnet-4-5-20250929", "sonnet", "claude"]) {
      const complete = await call("/v1/complete", { json: { route: name, messages: MESSAGES } });
      expect(complete.status, name).toBe(200);
      expect(await complete.json()).toMatchObject({ message: { content: "from claude" } });
      const chat = await call("/v1/chat/completions", { json: { model: name, messages: MESSAGES } });
      expect(chat.status, name).toBe(200);
      // The answer names the model as the client asked for it.
      expect(await chat.json()).toMatchObject({
        model: name,
        choices: [{ message: { content: "from claude" } }],
      });
    }
    // The upstream gets the route's own model, whatever name the client used.
    expect(calls.map((upstreamCall) => upstreamCall.body.model)).toEqual(Array(6).fill("claude-sonnet-4-5"));
  });

  it("the openai client calls a route by its alias", async () => {
    const { worker } = aliased(routes);
    const client = new OpenAI({
      apiKey: TOKEN,
      baseURL: "http://gateway.test/v1",
      maxRetries: 0,
      fetch: async (url, init) => worker.app.fetch(new Request(url, init), gatewayEnv),
    });
    const completion = await client.chat.completions.create({
      model: "claude-sonnet-4-5-20250929",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices[0]!.message.content).toBe("from claude");
  });

  it("GET /v1/models lists each route and then its aliases, so a client choosing from the list finds them", async () => {
    const { call } = aliased(routes);
    const body = (await (await call("/v1/models")).json()) as { data: { id: string; object: string }[] };
    expect(body.data.map((model) => model.id)).toEqual([
      "claude",
      "claude-sonnet-4-5-20250929",
      "sonnet",
      "gpt",
    ]);
    expect(body.data.every((model) => model.object === "model")).toBe(true);
  });

  it("a name listed twice is one alias", async () => {
    const { call } = aliased({ claude: { ...CLAUDE, aliases: ["sonnet", "sonnet"] } });
    const body = (await (await call("/v1/models")).json()) as { data: { id: string }[] };
    expect(body.data.map((model) => model.id)).toEqual(["claude", "sonnet"]);
  });
});

describe("aliases that cannot be served", () => {
  /** The issue paths of a route's 500, asked for by `name` on the chat route (OpenAI's shape). */
  async function configProblem(send: ReturnType<typeof aliased>["call"], name: string) {
    const response = await send("/v1/chat/completions", { json: { model: name, messages: MESSAGES } });
    expect(response.status, name).toBe(500);
    const text = await response.text();
    expect(text).not.toContain(ANTHROPIC_KEY);
    const body = JSON.parse(text) as { error: { code: string; message: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("config");
    return { paths: body.error.issues.map((issue) => issue.path), message: body.error.message };
  }

  it("an alias that is another route's name: that route is not served, the problem names the alias", async () => {
    const log: string[] = [];
    const { call } = aliased({ claude: { ...CLAUDE, aliases: ["sonnet", "gpt"] }, gpt: GPT }, log);
    const problem = await configProblem(call, "claude");
    expect(problem.paths).toEqual(["routes.claude.aliases[1]"]);
    expect(problem.message).toContain('"gpt" is already routes.gpt');
    // The route named gpt is served as configured; the clashing route is not listed.
    const gpt = await call("/v1/chat/completions", { json: { model: "gpt", messages: MESSAGES } });
    expect(await gpt.json()).toMatchObject({ choices: [{ message: { content: "from gpt" } }] });
    const models = (await (await call("/v1/models")).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(["gpt"]);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain("routes.claude.aliases[1]");
  });

  it("an alias another route claimed first: the second route is not served, naming both places", async () => {
    const { call } = aliased({
      claude: { ...CLAUDE, aliases: ["default"] },
      gpt: { ...GPT, aliases: ["gpt-4o", "default"] },
    });
    const problem = await configProblem(call, "gpt");
    expect(problem.paths).toEqual(["routes.gpt.aliases[1]"]);
    expect(problem.message).toContain('"default" is already routes.claude.aliases[0]');
    // The first claim stands.
    const first = await call("/v1/complete", { json: { route: "default", messages: MESSAGES } });
    expect(await first.json()).toMatchObject({ message: { content: "from claude" } });
  });

  it("the index named is the config's own, a name listed twice before it included", async () => {
    const { call } = aliased({ claude: { ...CLAUDE, aliases: ["sonnet", "sonnet", "gpt"] }, gpt: GPT });
    expect((await configProblem(call, "claude")).paths).toEqual(["routes.claude.aliases[2]"]);
  });

  it("an alias that is the route's own name, or not a route name at all, is named", async () => {
    const own = aliased({ claude: { ...CLAUDE, aliases: ["claude"] } });
    const ownProblem = await configProblem(own.call, "claude");
    expect(ownProblem.paths).toEqual(["routes.claude.aliases[0]"]);
    expect(ownProblem.message).toContain("own name");
    const bad = aliased({ claude: { ...CLAUDE, aliases: ["ok", "has space"] } });
    expect((await configProblem(bad.call, "claude")).paths).toEqual(["routes.claude.aliases[1]"]);
  });

  it("a call by an alias of a route that is not served is the route's 500, not an unknown model", async () => {
    const { call } = aliased({
      claude: { ...CLAUDE, apiKeySecret: "NO_SUCH_SECRET", aliases: ["claude-sonnet-4-5-20250929"] },
    });
    for (const name of ["claude", "claude-sonnet-4-5-20250929"]) {
      const problem = await configProblem(call, name);
      expect(problem.paths).toEqual(["routes.claude.apiKeySecret"]);
      expect(problem.message).toContain('route "claude" is not served');
    }
    // A name nobody configured is still the unknown model.
    const unknown = await call("/v1/chat/completions", { json: { model: "other", messages: MESSAGES } });
    expect(unknown.status).toBe(404);
  });
});
