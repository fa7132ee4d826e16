/** Shared runtime cases for the substrate (fallback, retry, config): they run in Node, workerd, Deno and Bun (see ./cases.ts). */
import { ProviderError, type StreamEvent, ValidationError } from "../../src/index.ts";
import {
  affinityPool,
  costOf,
  createProvider,
  extractBoxed,
  fallback,
  isStopStatus,
  rateLimitResetMs,
  retry,
} from "../../src/substrate/index.ts";
import { FakeProvider, type FakeStep } from "../../src/testing.ts";
import { equal, ok, rejects, throws } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

const HI = [{ role: "user" as const, content: "hi" }];

function failure(kind: "overloaded" | "rate_limit" | "server", provider: string, retryAfterMs?: number) {
  return new ProviderError({
    kind,
    message: `${kind} at ${provider}`,
    provider,
    model: `${provider}-model`,
    retryAfterMs,
  });
}

function fake(name: string, ...script: FakeStep[]): FakeProvider {
  return new FakeProvider({ name, model: `${name}-model`, script });
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<{ seen: StreamEvent[]; error: unknown }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

export const substrateCases: RuntimeCase[] = [
  {
    name: "substrate: fallback stream falls through before the first content event (held usage dropped), stamps servedBy",
    async run() {
      const a = fake("a", {
        events: [{ type: "usage", usage: { inputTokens: 99 } }],
        failAt: { at: 1, error: failure("overloaded", "a") },
      });
      const b = fake("b", { text: "from b", chunkSize: 2, usage: { inputTokens: 1, outputTokens: 2 } });
      const { seen, error } = await drain(fallback([{ provider: a }, { provider: b }]).stream(HI));
      equal(error, undefined);
      equal(
        seen.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])),
        ["fr", "om", " b"],
      );
      equal(
        seen.filter((event) => event.type === "usage"),
        [{ type: "usage", usage: { inputTokens: 1, outputTokens: 2 } }],
      );
      const done = seen.at(-1);
      ok(done?.type === "done");
      equal(done.response.servedBy?.index, 1);
      equal(done.response.servedBy?.provider, "b");
      equal((done.response.servedBy!.failures[0] as { kind: string; index: number }).kind, "overloaded");
    },
  },
  {
    name: "substrate: fallback stream after the first content event raises with partialOutput, never switches",
    async run() {
      const a = fake("a", {
        events: [{ type: "text-delta", text: "Hel" }],
        failAt: { at: 1, error: failure("overloaded", "a") },
      });
      const b = fake("b", { text: "never" });
      const { seen, error } = await drain(fallback([{ provider: a }, { provider: b }]).stream(HI));
      equal(seen, [{ type: "text-delta", text: "Hel" }]);
      ok(ProviderError.is(error));
      equal([error.kind, error.partialOutput], ["overloaded", true]);
      equal(b.calls.length, 0);
    },
  },
  {
    name: "substrate: [] mid-chain is a hard barrier (tier 3 never called); unset triggers inherit",
    async run() {
      const tier3 = fake("tier3", { text: "never" });
      const barrier = failure("overloaded", "tier2");
      const chain = fallback([
        { provider: fake("tier1", { error: failure("overloaded", "tier1") }) },
        { provider: fake("tier2", { error: barrier }), triggers: [] },
        { provider: tier3 },
      ]);
      equal(await rejects(chain.complete(HI)), barrier);
      equal(tier3.calls.length, 0);
      const inherits = fallback([
        { provider: fake("a", { error: failure("server", "a") }) },
        { provider: fake("b", { text: "b" }) },
      ]);
      equal((await inherits.complete(HI)).servedBy?.index, 1);
    },
  },
  {
    name: "substrate: retry honours retryAfterMs with a fake clock (no real sleeping), and an abort ends the wait",
    async run() {
      let now = 0;
      const delays: number[] = [];
      const sleep = async (ms: number) => {
        delays.push(ms);
        now += ms;
      };
      const inner = fake(
        "a",
        { error: failure("rate_limit", "a", 1500) },
        { error: failure("overloaded", "a") },
        { text: "ok" },
      );
      const response = await retry(inner, { attempts: 3, backoff: 100, sleep, random: () => 0.5 }).complete(
        HI,
      );
      equal(response.message.content, "ok");
      equal(delays, [1500, 100]);
      equal(now, 1600);

      const controller = new AbortController();
      const pending = retry(fake("a", { error: failure("server", "a") }, { text: "never" }), {
        // A wait that never ends on its own; the call is aborted while it is under way.
        sleep: () => {
          queueMicrotask(() => controller.abort());
          return new Promise<void>(() => {});
        },
      }).complete(HI, undefined, { signal: controller.signal });
      const error = await rejects(pending);
      ok(ProviderError.is(error));
      equal(error.kind, "aborted");
      equal(rateLimitResetMs(new Headers({ "x-ratelimit-reset-tokens": "6m0s" })), 360_000);
    },
  },
  {
    name: "substrate: createProvider builds a chain from JSON over fetch, and refuses a misspelt protocol",
    async run() {
      const warnings: string[] = [];
      const error = throws(
        () =>
          createProvider({ protocol: "anthropc", model: "m" }, { warn: (message) => warnings.push(message) }),
        ValidationError,
      ) as ValidationError;
      equal(error.issues[0]?.path, "protocol");
      ok(error.message.includes('did you mean "anthropic"?'));
      equal(warnings.length, 1);

      const fetchStub = (async (input: RequestInfo | URL) =>
        String(input).includes("anthropic")
          ? Response.json(
              { type: "error", error: { type: "overloaded_error", message: "busy" } },
              { status: 529 },
            )
          : Response.json({
              id: "c",
              object: "chat.completion",
              model: "gpt-4.1",
              choices: [
                { index: 0, message: { role: "assistant", content: "from openai" }, finish_reason: "stop" },
              ],
            })) as typeof fetch;
      const chain = createProvider(
        JSON.parse(
          '{"protocol":"anthropic","model":"claude-sonnet-4-6","apiKey":"k-abcdef","fallback":[{"protocol":"openai-chat","model":"gpt-4.1","apiKey":"k-abcdef"}]}',
        ),
        { fetch: fetchStub },
      );
      const response = await chain.complete(HI);
      equal(response.message.content, "from openai");
      equal(response.servedBy?.provider, "openai");
    },
  },
  {
    name: "substrate: affinity hashing, pause rows, cost and boxed answers agree across runtimes",
    async run() {
      const pool = affinityPool(["a", "b", "c", "d"], { weights: [1, 2, 3, 4] });
      const members: string[] = [];
      for (const key of ["s-1", "s-2", "s-3", "s-4", "s-5", "s-6", "s-7", "s-8"])
        members.push(await pool.memberFor(key));
      equal(members, ["d", "d", "c", "b", "d", "b", "c", "a"]);
      equal(isStopStatus({ status: "suspended" }), true);
      equal(isStopStatus(new Map([["status", "paused"]])), true);
      equal(costOf({ inputTokens: 1_000_000, outputTokens: 0 }, "claude-sonnet-4-6"), 3);
      equal(extractBoxed("so \\boxed{\\frac{1}{2}}"), "\\frac{1}{2}");
    },
  },
];
