/** Shared helpers of the substrate tests (no tests here). */
import {
  type MessageInput,
  type Provider,
  ProviderError,
  type ProviderErrorInit,
  type ProviderErrorKind,
  type StreamEvent,
} from "../../src/index.ts";
import { FakeProvider, type FakeStep } from "../../src/testing.ts";

export const HI: MessageInput[] = [{ role: "user", content: "hi" }];

/**
 * The substrate functions a host configures, as the README documents them (seed 004: a documented hook
 * was not exported): the substrate entry and the package root both export each.
 */
export const HOST_HOOKS: readonly string[] = [
  "fallback",
  "retry",
  "createProvider",
  "protocolOf",
  "affinityPool",
  "providerAffinity",
  "isStopStatus",
  "checkPause",
  "costOf",
  "cacheImpact",
  "withTelemetry",
  "extractBoxed",
];

/** A `ProviderError` of `kind` from provider `provider`. */
export function failure(
  kind: ProviderErrorKind,
  extra: Partial<ProviderErrorInit> = {},
  provider = "fake",
): ProviderError {
  return new ProviderError({
    kind,
    message: `${kind} failure`,
    provider,
    model: `${provider}-model`,
    ...extra,
  });
}

/** A FakeProvider named `name` (model `<name>-model`) answering `steps`. */
export function fake(name: string, ...steps: FakeStep[]): FakeProvider {
  return new FakeProvider({ name, model: `${name}-model`, script: steps });
}

export async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Drains a stream, returning the events seen before the error it throws (or undefined). */
export async function drainUntilError(
  events: AsyncIterable<StreamEvent>,
): Promise<{ seen: StreamEvent[]; error: unknown }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

/** Text of the text deltas among `events`. */
export function textOf(events: readonly StreamEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}

/** A provider whose stream records whether it was closed (its generator's finally ran). */
export function closable(events: readonly StreamEvent[]): Provider & { closed: boolean } {
  const provider = {
    name: "closable",
    model: "closable-model",
    protocol: "fake",
    closed: false,
    async complete(): Promise<never> {
      throw new Error("not used");
    },
    async *stream(): AsyncGenerator<StreamEvent> {
      try {
        for (const event of events) yield event;
      } finally {
        provider.closed = true;
      }
    },
  };
  return provider;
}

/** A manual clock. */
export function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}
