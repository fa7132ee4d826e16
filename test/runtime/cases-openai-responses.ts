/** Shared runtime cases for the OpenAI Responses adapter: they run in Node, workerd, Deno and Bun (see ./cases.ts). */
import type { RuntimeCase } from "./case.ts";

export const responsesCases: RuntimeCase[] = [];
