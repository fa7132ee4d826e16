/**
 * The Claude beta flags Bedrock's InvokeModel takes in the body's `anthropic_beta` — an allowlist, since
 * Bedrock answers a flag it does not know with a 400 (`invalid beta flag`) and first-party clients such as
 * Claude Code send many it does not take. Support varies by model and region; a flag missing here is left
 * out and reported, never a failed request. Sources: the AWS Bedrock Claude parameter pages, and the flags
 * gateways in the field forward to Bedrock.
 *
 * @module
 */
import { allowedBetas, type BetaAllowlist } from "../anthropic-cloud-betas.ts";

/** Flags InvokeModel takes. */
const ACCEPTED: ReadonlySet<string> = new Set([
  "computer-use-2024-10-22",
  "computer-use-2025-01-24",
  "computer-use-2025-11-24",
  "token-efficient-tools-2025-02-19",
  "output-128k-2025-02-19",
  "interleaved-thinking-2025-05-14",
  "dev-full-thinking-2025-05-14",
  "fine-grained-tool-streaming-2025-05-14",
  "context-management-2025-06-27",
  "context-1m-2025-08-07",
  "tool-search-tool-2025-10-19",
  "tool-examples-2025-10-29",
  "effort-2025-11-24",
  "compact-2026-01-12",
]);

/** First-party flags Bedrock knows under another name. */
const RENAMED: Readonly<Record<string, string>> = {
  "advanced-tool-use-2025-11-20": "tool-search-tool-2025-10-19",
};

/** Bedrock InvokeModel's allowlist (Vertex's starts from it: `vertex-anthropic/vertex-betas.ts`). */
export const BEDROCK_INVOKE_BETAS: BetaAllowlist = { accepted: ACCEPTED, renamed: RENAMED };

/**
 * The flags of `betas` InvokeModel takes (renamed where Bedrock's name differs, each once, in order), and
 * those it does not, left out.
 */
export function bedrockInvokeBetas(betas: readonly string[]): { accepted: string[]; dropped: string[] } {
  return allowedBetas(betas, BEDROCK_INVOKE_BETAS);
}
