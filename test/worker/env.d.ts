// What the workerd test project's `cloudflare:workers` exports hold: the Worker's default handler, and the
// bindings of wrangler.toml plus the test-only secrets of test/worker/vitest.config.ts.
declare namespace Cloudflare {
  interface Exports {
    default: Fetcher;
  }
  interface Env {
    GATEWAY_TOKENS: string;
    ADMIN_TOKENS: string;
    ANTHROPIC_API_KEY: string;
    MODELWIRE_CONFIG: string;
    SESSIONS: DurableObjectNamespace<import("../../src/worker/session-object.ts").SessionObject>;
    TASKS: DurableObjectNamespace<import("../../src/worker/task-object.ts").TaskObjectBase>;
    KEYS: DurableObjectNamespace<import("../../src/worker/keys/key-object.ts").KeyObject>;
    STREAMS: DurableObjectNamespace<import("../../src/worker/streams/stream-object.ts").StreamObjectBase>;
  }
}

// Vite's `?raw` imports (the README-curl test reads README.md and .dev.vars.example as text).
declare module "*?raw" {
  const text: string;
  export default text;
}
