/**
 * The modelwire Worker: wrangler's `main`. One gateway built by `createWorker()` (routes from the
 * `MODELWIRE_CONFIG` variable, tokens from the `GATEWAY_TOKENS` secret), and its Durable Objects.
 *
 * @module
 */
import { createWorker, type WorkerEnv } from "./app.ts";

const worker = createWorker();

export default { fetch: worker.fetch } satisfies ExportedHandler<WorkerEnv>;
export const SessionObject = worker.SessionObject;
export const TaskObject = worker.TaskObject;
export const KeyObject = worker.KeyObject;
export const StreamObject = worker.StreamObject;
export { createWorker };
