/**
 * What the Worker runs with: its bindings and variables ({@link WorkerEnv}), and the Hono environment
 * every route of the gateway is typed with ({@link Gateway}).
 *
 * @module
 */
import type { SessionObject } from "./session-object.ts";
import type { TaskObjectBase } from "./task-object.ts";

/** The bindings and variables the Worker reads. Secrets named by the config are read from here too. */
export interface WorkerEnv {
  /** Comma-separated bearer tokens accepted by the gateway (a secret). */
  GATEWAY_TOKENS?: string;
  /** Where OpenTelemetry spans of the model calls go (`{endpoint}/v1/traces`); unset: no traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** Headers of the span exports, `k1=v1,k2=v2` (a secret: the collector's API key). */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  /** The routes, as JSON (see README). */
  MODELWIRE_CONFIG?: string;
  /** One `SessionObject` per session id: the pins of pool routes. */
  SESSIONS?: DurableObjectNamespace<SessionObject>;
  /** One task object (the class `createWorker()` returns as `TaskObject`) per task id. */
  TASKS?: DurableObjectNamespace<TaskObjectBase>;
  [name: string]: unknown;
}

/** The Hono environment of the gateway's app and of each of its route groups. */
export type Gateway = { Bindings: WorkerEnv };
