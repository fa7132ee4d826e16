/**
 * Property: whatever the chain (random entries, triggers unset / [] / lists, random default triggers) and
 * whatever fails, a fallback call never calls an entry past a barrier that failed, calls each entry at most
 * once, and ends exactly once — a response or an error, as a reference model of the rules predicts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProviderError, type ProviderErrorKind, type StreamEvent } from "../../src/index.ts";
import { PROVIDER_ERROR_KINDS } from "../../src/protocols/index.ts";
import { type FallbackTrigger, fallback } from "../../src/substrate/index.ts";
import { FakeProvider, type FakeStep } from "../../src/testing.ts";
import { HI } from "./helpers.ts";

type Outcome =
  | { kind: "ok" }
  | { kind: "fail"; error: ProviderErrorKind; retryable: boolean | undefined; afterEvents: number };

interface EntrySpec {
  triggers: FallbackTrigger[] | undefined;
  outcome: Outcome;
  usageFirst: boolean;
}

const TRIGGERS: FallbackTrigger[] = [...PROVIDER_ERROR_KINDS, "retryable", "any"];

const triggersArb: fc.Arbitrary<FallbackTrigger[] | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant<FallbackTrigger[]>([]),
  fc.uniqueArray(fc.constantFrom(...TRIGGERS), { minLength: 1, maxLength: 4 }),
);

const outcomeArb: fc.Arbitrary<Outcome> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "ok" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("fail" as const),
      error: fc.constantFrom(...PROVIDER_ERROR_KINDS),
      retryable: fc.option(fc.boolean(), { nil: undefined }),
      afterEvents: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
      ),
    }),
  },
);

const chainArb = fc.record({
  entries: fc.array(fc.record({ triggers: triggersArb, outcome: outcomeArb, usageFirst: fc.boolean() }), {
    minLength: 1,
    maxLength: 6,
  }),
  defaultTriggers: triggersArb,
});

function errorOf(outcome: Outcome & { kind: "fail" }, index: number): ProviderError {
  return new ProviderError({
    kind: outcome.error,
    message: `entry ${index} failed`,
    provider: `p${index}`,
    model: `m${index}`,
    retryable: outcome.retryable,
  });
}

/** The script step of one entry. Text `e<index>-<n>`, so duplicated or foreign output is visible. */
function stepOf(spec: EntrySpec, index: number, streaming: boolean): FakeStep {
  const { outcome } = spec;
  const usage: StreamEvent[] = spec.usageFirst ? [{ type: "usage", usage: { inputTokens: index } }] : [];
  if (outcome.kind === "ok") {
    return { events: [...usage, { type: "text-delta", text: `e${index}-ok` }] };
  }
  if (!streaming || outcome.afterEvents === 0) {
    return usage.length > 0 && streaming
      ? { events: usage, failAt: { at: 1, error: errorOf(outcome, index) } }
      : { error: errorOf(outcome, index) };
  }
  const text: StreamEvent[] = Array.from({ length: outcome.afterEvents }, (_, n) => ({
    type: "text-delta",
    text: `e${index}-${n};`,
  }));
  return {
    events: [...usage, ...text],
    failAt: { at: usage.length + text.length, error: errorOf(outcome, index) },
  };
}

interface Expected {
  called: number[];
  served: number | undefined;
  raisedBy: number | undefined;
  partial: boolean;
}

/** The rules, written out plainly. */
function expected(
  specs: readonly EntrySpec[],
  defaults: FallbackTrigger[] | undefined,
  streaming: boolean,
): Expected {
  const called: number[] = [];
  for (let index = 0; index < specs.length; index++) {
    const { outcome, triggers } = specs[index]!;
    called.push(index);
    if (outcome.kind === "ok") return { called, served: index, raisedBy: undefined, partial: false };
    const partial = streaming && outcome.afterEvents > 0;
    if (partial) return { called, served: undefined, raisedBy: index, partial: true };
    const effective = triggers ?? defaults ?? ["retryable"];
    const retryable =
      outcome.retryable ??
      ["rate_limit", "overloaded", "server", "timeout", "network", "truncated"].includes(outcome.error);
    const falls =
      outcome.error !== "aborted" &&
      effective.some(
        (trigger) => trigger === "any" || trigger === outcome.error || (trigger === "retryable" && retryable),
      );
    if (!falls || index === specs.length - 1)
      return { called, served: undefined, raisedBy: index, partial: false };
  }
  throw new Error("unreachable");
}

function build(specs: readonly EntrySpec[], defaults: FallbackTrigger[] | undefined, streaming: boolean) {
  const providers = specs.map(
    (spec, index) =>
      new FakeProvider({ name: `p${index}`, model: `m${index}`, script: [stepOf(spec, index, streaming)] }),
  );
  const chain = fallback(
    specs.map((spec, index) => ({ provider: providers[index]!, triggers: spec.triggers })),
    { defaultTriggers: defaults },
  );
  return { providers, chain };
}

function assertBarriers(specs: readonly EntrySpec[], providers: readonly FakeProvider[]) {
  providers.forEach((provider, index) => {
    expect(provider.calls.length).toBeLessThanOrEqual(1);
    const spec = specs[index]!;
    const failedBarrier =
      provider.calls.length === 1 && spec.outcome.kind === "fail" && spec.triggers?.length === 0;
    if (failedBarrier) {
      for (const later of providers.slice(index + 1)) expect(later.calls).toHaveLength(0);
    }
  });
}

describe("fallback property: barriers and single outcome", () => {
  it("complete(): never calls past a failed barrier, settles once, as the rules predict", async () => {
    await fc.assert(
      fc.asyncProperty(chainArb, async ({ entries, defaultTriggers }) => {
        const { providers, chain } = build(entries, defaultTriggers, false);
        const want = expected(entries, defaultTriggers, false);
        let settled = 0;
        let result: unknown;
        let error: unknown;
        await chain.complete(HI).then(
          (value) => {
            settled++;
            result = value;
          },
          (reason: unknown) => {
            settled++;
            error = reason;
          },
        );
        expect(settled).toBe(1);
        assertBarriers(entries, providers);
        expect(providers.flatMap((provider, index) => (provider.calls.length > 0 ? [index] : []))).toEqual(
          want.called,
        );
        if (want.served !== undefined) {
          expect(error).toBeUndefined();
          expect(result).toMatchObject({ servedBy: { index: want.served } });
          expect((result as { servedBy: { failures: unknown[] } }).servedBy.failures).toHaveLength(
            want.called.length - 1,
          );
        } else {
          expect(error).toBeInstanceOf(ProviderError);
          expect((error as ProviderError).provider).toBe(`p${want.raisedBy}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("stream(): one done or one error, never both; no output from an entry that was fallen through", async () => {
    await fc.assert(
      fc.asyncProperty(chainArb, async ({ entries, defaultTriggers }) => {
        const { providers, chain } = build(entries, defaultTriggers, true);
        const want = expected(entries, defaultTriggers, true);
        const seen: StreamEvent[] = [];
        let error: unknown;
        try {
          for await (const event of chain.stream(HI)) seen.push(event);
        } catch (caught) {
          error = caught;
        }
        assertBarriers(entries, providers);
        expect(providers.flatMap((provider, index) => (provider.calls.length > 0 ? [index] : []))).toEqual(
          want.called,
        );
        const dones = seen.filter((event) => event.type === "done");
        const text = seen.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
        const usage = seen.filter((event) => event.type === "usage");
        if (want.served !== undefined) {
          expect(error).toBeUndefined();
          expect(dones).toHaveLength(1);
          expect(seen.at(-1)?.type).toBe("done");
          expect(text).toBe(`e${want.served}-ok`);
          // Held usage of failed entries never leaks; the serving entry's is released.
          expect(usage).toEqual(
            entries[want.served]!.usageFirst ? [{ type: "usage", usage: { inputTokens: want.served } }] : [],
          );
        } else {
          expect(dones).toHaveLength(0);
          expect(error).toBeInstanceOf(ProviderError);
          expect((error as ProviderError).provider).toBe(`p${want.raisedBy}`);
          expect((error as ProviderError).partialOutput).toBe(want.partial);
          // Only the raising entry's partial text, if any, reached the caller.
          const outcome = entries[want.raisedBy!]!.outcome as Outcome & { kind: "fail" };
          const partialText = want.partial
            ? Array.from({ length: outcome.afterEvents }, (_, n) => `e${want.raisedBy}-${n};`).join("")
            : "";
          expect(text).toBe(partialText);
        }
      }),
      { numRuns: 400 },
    );
  });
});
