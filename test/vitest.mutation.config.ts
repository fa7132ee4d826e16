import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Mutation testing only (stryker.config.json, `npm run mutation`): the `node` project of
 * test/vitest.config.ts on its own. Left out: test/worker/ (the workerd pool; Stryker's vitest runner
 * drives only Node pools), test/package/ (packs and installs the package) and test/tooling/ (lint, README
 * and bundle-size checks that kill no mutant of src/ but cost time on every mutant run).
 */
export default defineConfig({
  ssr: { resolve: { conditions: ["modelwire-source"] } },
  test: {
    name: "node",
    root,
    include: ["test/**/*.test.ts"],
    exclude: ["test/worker/**", "test/package/**", "test/tooling/**", "**/node_modules/**"],
    environment: "node",
    // Instrumented code (a coverage counter per mutant) runs slower: property tests overrun the default 5 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
