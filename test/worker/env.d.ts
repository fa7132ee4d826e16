// What the workerd test project's `cloudflare:workers` exports hold: the Worker's default handler.
declare namespace Cloudflare {
  interface Exports {
    default: Fetcher;
  }
}
