/**
 * The Claude beta flags Vertex AI takes in the `anthropic-beta` header of `rawPredict` /
 * `streamRawPredict` — an allowlist, not a blocklist: Vertex checks the header against its own list and
 * answers any other value with a 400 (`Unexpected value(s) … for the anthropic-beta header`), and
 * first-party clients such as Claude Code send flags it does not take (`oauth-2025-04-20`,
 * `prompt-caching-scope-2026-01-05`, `advisor-tool-2026-03-01`, …). A flag missing here is left out and
 * reported (`x-modelwire-dropped-betas`), never a failed request; one a model does take but this list
 * lacks costs a feature, not the call.
 *
 * The list: Bedrock InvokeModel's (`../bedrock-invoke/bedrock-betas.ts`: the same Claude versions behind a
 * cloud, the same first-party rename of `advanced-tool-use-2025-11-20` to `tool-search-tool-2025-10-19`),
 * plus `claude-code-20250219`, which Claude Code itself sends to Vertex (its
 * `VERTEX_COUNT_TOKENS_ALLOWED_BETAS` is `claude-code-20250219`, `interleaved-thinking-2025-05-14`,
 * `context-management-2025-06-27`). Support varies by model and region.
 *
 * @module
 */
import type { BetaAllowlist } from "../anthropic-cloud-betas.ts";
import { BEDROCK_INVOKE_BETAS } from "../bedrock-invoke/bedrock-betas.ts";

/** Vertex's allowlist: Bedrock's flags and renames, and Claude Code's own flag. */
export const VERTEX_ANTHROPIC_BETAS: BetaAllowlist = {
  accepted: new Set([
    ...BEDROCK_INVOKE_BETAS.accepted,
    "claude-code-20250219",
    "interleaved-thinking-2025-05-14",
    "context-management-2025-06-27",
  ]),
  ...(BEDROCK_INVOKE_BETAS.renamed ? { renamed: BEDROCK_INVOKE_BETAS.renamed } : {}),
};
