/**
 * Usage as the gateway records it: one row per key, hour, route and model, summed over the calls
 * (`requests`: upstream calls, a pool's failover counted as a call of its own), and the sums a usage query
 * answers with, grouped by key, route or model.
 *
 * Token counts follow the library's `Usage` (uncached input, output, cache reads, cache writes,
 * reasoning); a call that reported no usage is counted in `unreported`, one whose cost is unknown (no
 * price for its model) in `unpriced` — its tokens are in the sums, its cost is not, so `costUsd` is never
 * a guess.
 *
 * @module
 */
import { totalInputTokens, type Usage } from "../../core/usage.ts";

/** The sums of one group of calls. */
export interface UsageTotals {
  requests: number;
  /** Calls that failed (their usage before the failure is in the sums). */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** US dollars of the priced calls. */
  costUsd: number;
  /** Calls whose cost is unknown (their model has no price). */
  unpriced: number;
  /** Calls the upstream reported no usage for. */
  unreported: number;
}

/** A stored row: a key's calls in one hour (its start, epoch ms) on one route and model. */
export interface UsageRow extends UsageTotals {
  hour: number;
  route: string;
  model: string;
}

/** One call as the meter reports it to the key's object. */
export interface CallRecord {
  route: string;
  model: string;
  /** Undefined: the upstream reported none. */
  usage?: Usage | undefined;
  /** Undefined: unknown (no price, or no usage). */
  cost?: number | undefined;
  failed: boolean;
  /** The admission it belongs to, when the key has limits (`KeyObject.admit`). */
  admission?: number | undefined;
}

export const HOUR_MS = 3_600_000;

/** Zero sums. */
export function emptyTotals(): UsageTotals {
  return {
    requests: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    unpriced: 0,
    unreported: 0,
  };
}

/** The sums of one call. */
export function totalsOf(call: CallRecord): UsageTotals {
  const usage = call.usage;
  const reported = usage !== undefined && totalInputTokens(usage) !== undefined;
  return {
    requests: 1,
    errors: call.failed ? 1 : 0,
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cacheReadTokens: usage?.cachedInputTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    costUsd: call.cost ?? 0,
    // A call with no tokens costs nothing known; one with tokens and no price is unpriced.
    unpriced: call.cost === undefined && reported ? 1 : 0,
    unreported: reported || usage?.outputTokens !== undefined ? 0 : 1,
  };
}

/** The tokens a call counts against `tpm`: total input and output, as reported. */
export function windowTokensOf(usage: Usage | undefined): number {
  if (!usage) return 0;
  return (totalInputTokens(usage) ?? 0) + (usage.outputTokens ?? 0);
}

/** The summed fields, in the order of {@link UsageTotals}. */
export const TOTAL_FIELDS = Object.keys(emptyTotals()) as readonly (keyof UsageTotals)[];

/** `into` plus `add`, over {@link TOTAL_FIELDS} (in place; other fields of either are left alone). */
export function addTotals(into: UsageTotals, add: UsageTotals): UsageTotals {
  for (const field of TOTAL_FIELDS) into[field] += add[field];
  return into;
}

/** The group of a usage query. */
export type UsageGroup = "key" | "route" | "model";

/** One line of a usage query's answer. */
export type UsageLine = { key?: string; name?: string; route?: string; model?: string } & UsageTotals;

/**
 * Rows of several keys summed per group, the largest cost first (then the most requests, then the name),
 * and their total. `names`: each key's name, for `groupBy: "key"`.
 */
export function groupUsage(
  rows: readonly (UsageRow & { key: string })[],
  groupBy: UsageGroup,
  names: ReadonlyMap<string, string>,
): { data: UsageLine[]; total: UsageTotals } {
  const groups = new Map<string, UsageLine>();
  const total = emptyTotals();
  for (const row of rows) {
    const group = row[groupBy];
    let line = groups.get(group);
    if (!line) {
      line = { [groupBy]: group, ...emptyTotals() };
      if (groupBy === "key" && names.has(group)) line.name = names.get(group)!;
      groups.set(group, line);
    }
    addTotals(line, row);
    addTotals(total, row);
  }
  const data = [...groups.values()].sort(
    (a, b) =>
      b.costUsd - a.costUsd ||
      b.requests - a.requests ||
      String(a[groupBy]).localeCompare(String(b[groupBy])),
  );
  return { data, total };
}
