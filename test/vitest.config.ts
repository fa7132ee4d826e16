import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Two projects: `node` runs every test under test/ except test/worker/ and test/package/ in Node 22;
 * `workerd` runs test/worker/ inside the Workers runtime (test/worker/vitest.config.ts). The packed-package
 * checks (test/package/) run on their own: `npm run test:package`.
 */
export default defineConfig({
  test: {
    root,
    projects: [
      {
        // `import "modelwire"` in a test means this checkout's sources, not a built dist/.
        ssr: { resolve: { conditions: ["modelwire-source"] } },
        test: {
          name: "node",
          root,
          include: ["test/**/*.test.ts"],
          exclude: ["test/worker/**", "test/package/**", "**/node_modules/**"],
          environment: "node",
          // The machines are shared: a heavy test (every cut of a recording, a 10,000-run property) can take
          // several times its usual time there. Speed is measured in `npm run bench`, never here.
          testTimeout: 30_000,
        },
      },
      "test/worker/vitest.config.ts",
    ],
  },
});
