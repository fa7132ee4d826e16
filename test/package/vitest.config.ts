import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The packed-package checks (test/package/), run apart from the unit tests (`npm run test:package`):
 * they pack, install and start runtimes, which takes a minute and must not compete with the unit tests
 * for the machine's cores.
 */
export default defineConfig({
  test: {
    name: "package",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/package/**/*.test.ts"],
    environment: "node",
    testTimeout: 240_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
