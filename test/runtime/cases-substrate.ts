/** Shared runtime cases for the substrate (fallback, retry, config): they run in Node, workerd, Deno and Bun (see ./cases.ts). */
import type { RuntimeCase } from "./case.ts";

export const substrateCases: RuntimeCase[] = [];
