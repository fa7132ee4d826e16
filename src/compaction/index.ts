/**
 * `modelwire/compaction`: keeps a long agent run inside its model's context. `compaction()` is the policy
 * `runAgent({ compaction })` (and a Worker workflow's `compaction`) runs before every model call: older
 * turns become one `synthetic` summary when the request would pass the threshold, or when that is modelled
 * to be cheaper over the next calls, prompt-cache re-write included; every compaction is reported with
 * the tokens it reclaimed and what it is modelled to cost.
 *
 * @example
 * ```ts
 * import { compaction } from "modelwire/compaction";
 * const result = await runAgent({ provider, tools, messages, compaction: compaction({ threshold: 0.7 }) });
 * result.compactions; // [{ reason: "fit", tokensReclaimed: 61_204, cacheRewriteCost: 0.0341, … }]
 * ```
 *
 * @module
 */
export type { AgentCompaction, CompactionReport } from "../agent/run-agent.ts";
export { type CompactionOptions, compaction } from "./compaction.ts";
