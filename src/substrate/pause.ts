/**
 * Pause checks: whether a task's stored status says to stop at the next boundary, read from whatever
 * shape the host keeps it in — and never a crash, whatever that shape turns out to be.
 *
 * @module
 */

/** Where pause checks write: `console` fits. */
export interface PauseLogger {
  warn(message: string): void;
  info?(message: string): void;
}

/** Options of {@link isStopStatus} and {@link checkPause}. */
export interface PauseOptions {
  /** Receives the stop and warning lines (`console` fits); unset, nothing is printed. */
  logger?: PauseLogger | undefined;
}

/** The answer of {@link checkPause}. */
export interface PauseState {
  /** True: stop at this boundary. */
  stop: boolean;
  /** The status read, lower-cased; `undefined` when none could be read. */
  status: string | undefined;
}

/** What is logged when no logger is given: nothing (the library prints nothing unless asked). */
const SILENT: PauseLogger = { warn: () => {} };

/** Statuses that stop a task. */
const STOP_STATUSES: ReadonlySet<string> = new Set([
  "paused",
  "suspended",
  "aborted",
  "cancelled",
  "canceled",
  "stopped",
]);

/**
 * Whether a stored status means "stop". Accepts what hosts really store:
 * - a string (`"paused"`), in any case, or a string enum member (`TaskStatus.Suspended`);
 * - an object with a `status` property (a class instance, a getter);
 * - a plain mapping / database row (`{ status: "suspended", id: 7 }`) or a `Map` with a `"status"` key.
 *
 * Stop statuses: `paused`, `suspended`, `aborted`, `cancelled` / `canceled`, `stopped`. Anything else
 * reads as running. A shape with no readable status (`{}`, a number, a `status` that is not a string, an
 * object whose getter throws) reads as running with one warning line — the check fails open, it never
 * throws. `undefined` / `null` (no status recorded) is running, quietly.
 *
 * @example
 * ```ts
 * isStopStatus("paused");                     // true
 * isStopStatus({ status: "suspended", id: 7 }); // true
 * isStopStatus(new Map([["status", "aborted"]])); // true
 * isStopStatus({ state: "paused" });          // false, and one warning line
 * ```
 */
export function isStopStatus(row: unknown, options: PauseOptions = {}): boolean {
  const status = statusOf(row, options.logger ?? SILENT);
  return status !== undefined && STOP_STATUSES.has(status);
}

/**
 * Reads a task's status — a value in any shape {@link isStopStatus} accepts, or a function returning one
 * (possibly async: a Durable Object or database read) — and says whether to stop. A stop is logged (one
 * info line); a source that throws reads as running with a warning, like an unknown shape.
 *
 * @example
 * ```ts
 * const state = await checkPause(() => db.get("SELECT status FROM tasks WHERE id = ?", taskId));
 * if (state.stop) return { paused: true, status: state.status };
 * ```
 */
export async function checkPause(source: unknown, options: PauseOptions = {}): Promise<PauseState> {
  const logger = options.logger ?? SILENT;
  let value: unknown;
  try {
    value = typeof source === "function" ? await (source as () => unknown)() : await source;
  } catch (error) {
    log(
      logger,
      "warn",
      `modelwire: pause check could not read the task status (${errorText(error)}); running`,
    );
    return { stop: false, status: undefined };
  }
  const status = statusOf(value, logger);
  const stop = status !== undefined && STOP_STATUSES.has(status);
  if (stop) log(logger, "info", `modelwire: task status is "${status}"; stopping at this boundary`);
  return { stop, status };
}

/** The lower-cased status of `value`, or `undefined` (with a warning for a shape that has none). */
function statusOf(value: unknown, logger: PauseLogger): string | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    const status = rawStatus(value);
    if (status !== undefined) return status.trim().toLowerCase();
  } catch (error) {
    log(logger, "warn", `modelwire: pause check could not read a status (${errorText(error)}); running`);
    return undefined;
  }
  log(logger, "warn", `modelwire: pause check found no status in ${shape(value)}; treating it as running`);
  return undefined;
}

function rawStatus(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof String) return value.valueOf();
  if (typeof value !== "object" || value === null) return undefined;
  // A Map first: its entries are not properties (the seed's mapping-shaped rows, JavaScript's mapping type).
  if (value instanceof Map) return stringOf(value.get("status"));
  if ("status" in value) return stringOf((value as { status: unknown }).status);
  return undefined;
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof String) return value.valueOf();
  return undefined;
}

function shape(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return `a ${typeof value}`;
  const keys = Object.keys(value as object).slice(0, 5);
  return keys.length > 0 ? `an object with keys ${keys.join(", ")}` : "an object without keys";
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function log(logger: PauseLogger, level: "info" | "warn", message: string): void {
  try {
    if (level === "info") (logger.info ?? logger.warn).call(logger, message);
    else logger.warn(message);
  } catch {
    // A broken logger never turns a pause check into a crash.
  }
}
