/**
 * The modelwire Worker: wrangler's `main`. For now it serves `/health`; later layers add the neutral
 * API, the OpenAI-compatible facade and the Durable Objects.
 *
 * @module
 */
import { createApp } from "./app.ts";

const app = createApp();

export default app satisfies ExportedHandler;
