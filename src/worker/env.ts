/**
 * What the Worker runs with: its bindings and variables ({@link WorkerEnv}), and the Hono environment
 * every route of the gateway is typed with ({@link Gateway}).
 *
 * @module
 */
import type { KeyObject } from "./keys/key-object.ts";
import type { KeyRecord } from "./keys/key-record.ts";
import type { SessionObject } from "./session-object.ts";
import type { StreamObjectBase } from "./streams/stream-object.ts";
import type { TaskObjectBase } from "./task-object.ts";

/** The bindings and variables the Worker reads. Secrets named by the config are read from here too. */
export interface WorkerEnv {
  /** Comma-separated bearer tokens accepted by the gateway (a secret): static keys without limits. */
  GATEWAY_TOKENS?: string;
  /** Comma-separated tokens of the admin API (`/v1/admin/*`, a secret); unset: the admin API is closed. */
  ADMIN_TOKENS?: string;
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
  /** One stream object per resumable stream (the class `createWorker()` returns as `StreamObject`). */
  STREAMS?: DurableObjectNamespace<StreamObjectBase>;
  /** One `KeyObject` per virtual key (and the key directory): the admin API and per-key limits. */
  KEYS?: DurableObjectNamespace<KeyObject>;
  [name: string]: unknown;
}

/** Who made a request: one of the `GATEWAY_TOKENS`, or a virtual key (its record as authenticated). */
export type Principal = { kind: "token" } | { kind: "key"; id: string; hash: string; record: KeyRecord };

/** A request body as `jsonBody` read it: its text (for estimates) and its value. */
export interface ReadBody {
  text: string;
  value: unknown;
}

/** The Hono environment of the gateway's app and of each of its route groups. */
export type Gateway = {
  Bindings: WorkerEnv;
  Variables: { principal?: Principal; body?: ReadBody };
};
