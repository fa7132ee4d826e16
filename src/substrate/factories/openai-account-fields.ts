/**
 * The account fields the configs of both OpenAI protocols take (`openai-chat`, `openai-responses`).
 *
 * @module
 */
import * as z from "zod/mini";

/** `organization` and `project`: sent as `openai-organization` and `openai-project`. */
export const OPENAI_ACCOUNT_FIELDS = {
  /** The OpenAI organisation. */
  organization: z.optional(z.string()),
  /** The OpenAI project. */
  project: z.optional(z.string()),
};
