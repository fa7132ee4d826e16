import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/** The token `npm run dev` accepts (from .dev.vars.example), so the README's local curls run in the tests. */
const devToken = /^GATEWAY_TOKENS=(.+)$/m.exec(
  readFileSync(fileURLToPath(new URL("../../.dev.vars.example", import.meta.url)), "utf8"),
)?.[1];

/** Tests under test/worker/ run inside workerd, with the Worker from wrangler.toml as `main`. */
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("../../wrangler.toml", import.meta.url)) },
      // Test-only secrets: the gateway refuses every route without a token.
      miniflare: {
        bindings: {
          GATEWAY_TOKENS: `test-token-a, test-token-b, ${devToken}`,
          ADMIN_TOKENS: "test-admin-token",
          ANTHROPIC_API_KEY: "sk-ant-test-worker-key-000000",
          // The deployed config's demo route waits 3 s per call so a person can pause a demo task; tests
          // step tasks by hand and need no wait.
          MODELWIRE_CONFIG: JSON.stringify({
            routes: {
              demo: { demo: true },
              "demo-pool": { pool: [{ demo: true }, { demo: true }] },
              local: { protocol: "openai-chat", model: "llama3.2", endpoint: "ollama" },
            },
          }),
        },
      },
    }),
  ],
  // `import "modelwire"` (and its subpaths) in a test means this checkout's sources, as in the node project.
  ssr: { resolve: { conditions: ["modelwire-source"] } },
  test: {
    name: "workerd",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/worker/**/*.test.ts"],
  },
});
