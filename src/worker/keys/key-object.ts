/**
 * `KeyObject`: one Durable Object per virtual key (named by the key's id), the single writer of
 * everything the key's limits count — its record, the requests of its sliding window, its spend per
 * period, the cost held by its calls in flight, and its usage per hour, route and model. Each admission is
 * one synchronous pass over SQLite storage inside one RPC, so concurrent requests are counted one after
 * the other: `rpm: M` admits exactly M of N concurrent requests.
 *
 * Two more objects of the class have roles of their own: {@link DIRECTORY} lists the keys (the admin API's
 * `GET /v1/admin/keys`, and whose usage a query sums), and {@link STATIC_TOKENS} records the usage of the
 * `GATEWAY_TOKENS` (which have no limits). Their names are not key ids, so no key can be either.
 *
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { type LazySchema, lazySchema } from "../lazy-schema.ts";
import {
  type KeyPatch,
  type KeyRecord,
  keyUnusable,
  patchedRecord,
  routeAllowed,
  sameHash,
} from "./key-record.ts";
import {
  budgetRefusal,
  periodKey,
  RESERVATION_MS,
  type Refusal,
  rateRefusal,
  WINDOW_MS,
  type WindowEntry,
} from "./limits.ts";
import { type CallRecord, HOUR_MS, TOTAL_FIELDS, totalsOf, type UsageRow } from "./usage-rows.ts";

/** The name of the object that lists the keys. */
export const DIRECTORY = "directory";
/** The name of the object that records the usage of the `GATEWAY_TOKENS`. */
export const STATIC_TOKENS = "gateway-tokens";
/** The most keys a gateway holds (a usage query reads every key's object). */
export const MAX_KEYS = 1000;
/** Usage rows older than this are removed. */
export const USAGE_RETENTION_MS = 400 * 24 * HOUR_MS;

/** What a request asks of its key before the upstream call. */
export interface AdmissionRequest {
  /** SHA-256 of the key's text, as presented. */
  hash: string;
  route: string;
  /** The route's other names (a key's `routes` may name any of them). */
  aliases?: readonly string[] | undefined;
  /** Estimated tokens: input + the output limit. */
  tokens: number;
  /** Estimated cost in US dollars; undefined: unknown (no price). */
  cost: number | undefined;
  /** Whether the request counts against the limits (`count_tokens` does not). */
  metered: boolean;
}

/** The answer to an {@link AdmissionRequest}. */
export type Admission =
  | { ok: true; admission: number | undefined }
  | ({ ok: false } & (
      | Refusal
      | { status: 401 | 403; code: string; message: string; retryAfterMs?: undefined }
    ));

/** A key's limits as they stand: for `GET /v1/admin/keys/:id`. */
export interface KeyState {
  window: { requests: number; tokens: number };
  spend?: { period: string; usd: number; inFlightUsd: number } | undefined;
}

/** A key's entry in the directory. */
export interface DirectoryEntry {
  id: string;
  createdAt: number;
  deletedAt?: number | undefined;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS key (id TEXT PRIMARY KEY, hash TEXT NOT NULL, record TEXT NOT NULL, deleted_at INTEGER)",
  `CREATE TABLE IF NOT EXISTS admissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    reserved_usd REAL NOT NULL DEFAULT 0,
    settled INTEGER NOT NULL DEFAULT 0
  )`,
  "CREATE INDEX IF NOT EXISTS admissions_at ON admissions (at)",
  "CREATE TABLE IF NOT EXISTS spend (period TEXT PRIMARY KEY, usd REAL NOT NULL)",
  `CREATE TABLE IF NOT EXISTS usage (
    hour INTEGER NOT NULL,
    route TEXT NOT NULL,
    model TEXT NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    unpriced INTEGER NOT NULL,
    unreported INTEGER NOT NULL,
    PRIMARY KEY (hour, route, model)
  )`,
  "CREATE TABLE IF NOT EXISTS directory (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, deleted_at INTEGER)",
];

/** Usage columns in the order of `TOTAL_FIELDS`. */
const USAGE_COLUMNS = [
  "requests",
  "errors",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "unpriced",
  "unreported",
] as const;

type KeyRow = { id: string; hash: string; record: string; deleted_at: number | null };

/** Durable Object: one virtual key's record, limits and usage (or the key directory). RPC methods return plain data. */
export class KeyObject extends DurableObject {
  private readonly sql: SqlStorage;
  /** The key's row, read once per wake and kept with every write. */
  private row: KeyRow | undefined | null = null;

  /** Its tables, made by the first write (`lazy-schema.ts`). */
  private readonly schema: LazySchema;
  /** When usage and spend were last pruned (once an hour per instance). */
  private pruned = 0;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.schema = lazySchema(this.sql, SCHEMA, "usage");
  }

  // --- the key ----------------------------------------------------------------------------------------

  /** Stores a new key's record and hash; false when this object already holds a key. */
  create(record: KeyRecord, hash: string): boolean {
    this.schema.ensure();
    if (this.keyRow() !== undefined) return false;
    this.sql.exec(
      "INSERT INTO key (id, hash, record, deleted_at) VALUES (?, ?, ?, NULL)",
      record.id,
      hash,
      JSON.stringify(record),
    );
    this.row = null;
    return true;
  }

  /** The key's record; undefined when there is none (never created, or deleted). */
  record(): KeyRecord | undefined {
    const row = this.keyRow();
    return row && row.deleted_at === null ? (JSON.parse(row.record) as KeyRecord) : undefined;
  }

  /** The key's name, deleted or not (a usage query names the keys it sums); undefined when none. */
  keyName(): string | undefined {
    const row = this.keyRow();
    return row ? (JSON.parse(row.record) as KeyRecord).name : undefined;
  }

  /** Applies a checked `PATCH` body; the new record, or undefined when there is no key. */
  update(patch: KeyPatch, now: number): KeyRecord | undefined {
    const record = this.record();
    if (!record) return undefined;
    const next = patchedRecord(record, patch, now);
    this.sql.exec("UPDATE key SET record = ?", JSON.stringify(next));
    this.row = null;
    return next;
  }

  /** Revokes the key (its usage stays for the usage query); false when there was none. */
  revoke(now: number): boolean {
    if (!this.record()) return false;
    this.sql.exec("UPDATE key SET deleted_at = ?", now);
    this.row = null;
    return true;
  }

  /**
   * The key's record when `hash` is its hash and it may be used at `now`; else why not (`unknown`: no
   * such key, or the hash differs — the two are not told apart).
   */
  authenticate(hash: string, now: number): { record: KeyRecord } | { refused: string } {
    const row = this.keyRow();
    if (!row || row.deleted_at !== null || !sameHash(row.hash, hash)) return { refused: "unknown" };
    const record = JSON.parse(row.record) as KeyRecord;
    const unusable = keyUnusable(record, now);
    return unusable ? { refused: unusable } : { record };
  }

  /**
   * Admits one request, or says why not: the key (by `hash`), whether it may call the route, then — when
   * `metered` — its `rpm`, `tpm` and budget. An admitted metered request is counted in the window at once
   * (with its estimated tokens) and holds its estimated cost until {@link KeyObject.record} settles it.
   */
  admit(request: AdmissionRequest, now = Date.now()): Admission {
    const known = this.authenticate(request.hash, now);
    if ("refused" in known) {
      return {
        ok: false,
        status: 401,
        code: "invalid_api_key",
        message: known.refused === "unknown" ? "missing or invalid bearer token" : known.refused,
      };
    }
    const { record } = known;
    if (!routeAllowed(record, request.route, request.aliases)) {
      return {
        ok: false,
        status: 403,
        code: "route_not_allowed",
        message: `this key may not use the route "${request.route}"`,
      };
    }
    if (!request.metered) return { ok: true, admission: undefined };
    this.prune(now);
    const window = this.sql
      .exec<{ at: number; tokens: number }>(
        "SELECT at, tokens FROM admissions WHERE at > ? ORDER BY at, id",
        now - WINDOW_MS,
      )
      .toArray() as WindowEntry[];
    const rate = rateRefusal(record, window, request.tokens, now);
    if (rate) return { ok: false, ...rate };
    let reserved = 0;
    if (record.budget) {
      const spent = this.spent(periodKey(record.budget.period, now));
      reserved = request.cost ?? 0;
      const refusal = budgetRefusal(record.budget, spent, this.inFlightUsd(now), request.cost, now);
      if (refusal) return { ok: false, ...refusal };
    }
    const admission = this.sql
      .exec<{ id: number }>(
        "INSERT INTO admissions (at, tokens, reserved_usd) VALUES (?, ?, ?) RETURNING id",
        now,
        request.tokens,
        reserved,
      )
      .one().id;
    return { ok: true, admission };
  }

  /** Records one upstream call in the usage row of its hour, route and model. */
  recordCall(call: CallRecord, now = Date.now()): void {
    this.schema.ensure();
    this.prune(now);
    const totals = totalsOf(call);
    const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const values = TOTAL_FIELDS.map((field) => totals[field]);
    this.sql.exec(
      `INSERT INTO usage (hour, route, model, ${USAGE_COLUMNS.join(", ")})
       VALUES (?, ?, ?, ${USAGE_COLUMNS.map(() => "?").join(", ")})
       ON CONFLICT (hour, route, model) DO UPDATE SET ${USAGE_COLUMNS.map((column) => `${column} = ${column} + excluded.${column}`).join(", ")}`,
      hour,
      call.route,
      call.model,
      ...values,
    );
  }

  /**
   * Settles a request once all its upstream calls ended: `usd` added to the spend of every period, and —
   * for its admission — the window's tokens replaced by `tokens` and the cost it held released.
   */
  settle(admission: number | undefined, tokens: number, usd: number, now = Date.now()): void {
    this.schema.ensure();
    if (usd > 0) {
      for (const period of ["day", "month", "total"] as const) {
        this.sql.exec(
          "INSERT INTO spend (period, usd) VALUES (?, ?) ON CONFLICT (period) DO UPDATE SET usd = usd + excluded.usd",
          periodKey(period, now),
          usd,
        );
      }
    }
    if (admission !== undefined) {
      this.sql.exec(
        "UPDATE admissions SET tokens = ?, reserved_usd = 0, settled = 1 WHERE id = ?",
        tokens,
        admission,
      );
    }
  }

  /** The window and spend as they stand at `now`. */
  state(now = Date.now()): KeyState {
    if (!this.schema.exists()) return { window: { requests: 0, tokens: 0 } };
    const window = this.sql
      .exec<{ requests: number; tokens: number | null }>(
        "SELECT COUNT(*) AS requests, SUM(tokens) AS tokens FROM admissions WHERE at > ?",
        now - WINDOW_MS,
      )
      .one();
    const budget = this.record()?.budget;
    const period = budget ? periodKey(budget.period, now) : undefined;
    return {
      window: { requests: window.requests, tokens: window.tokens ?? 0 },
      ...(period ? { spend: { period, usd: this.spent(period), inFlightUsd: this.inFlightUsd(now) } } : {}),
    };
  }

  /** The key's name (undefined for the named roles) and its usage rows of the hours in `[from, to)`. */
  usageOf(from: number, to: number): { name: string | undefined; rows: UsageRow[] } {
    return { name: this.keyName(), rows: this.usage(from, to) };
  }

  /** The usage rows of the hours in `[from, to)` (epoch ms), oldest first. */
  usage(from: number, to: number): UsageRow[] {
    if (!this.schema.exists()) return [];
    return this.sql
      .exec<Record<string, number | string>>(
        `SELECT hour, route, model, ${USAGE_COLUMNS.join(", ")} FROM usage WHERE hour >= ? AND hour < ? ORDER BY hour, route, model`,
        Math.floor(from / HOUR_MS) * HOUR_MS,
        to,
      )
      .toArray()
      .map((row) => {
        const out: Record<string, number | string> = {
          hour: Number(row.hour),
          route: String(row.route),
          model: String(row.model),
        };
        TOTAL_FIELDS.forEach((field, index) => {
          out[field] = Number(row[USAGE_COLUMNS[index]!]);
        });
        return out as unknown as UsageRow;
      });
  }

  // --- the directory (the object named DIRECTORY) -------------------------------------------------------

  /** Lists a new key; false when the directory already holds {@link MAX_KEYS} live keys. */
  register(id: string, now: number): boolean {
    this.schema.ensure();
    const live = this.sql
      .exec<{ count: number }>("SELECT COUNT(*) AS count FROM directory WHERE deleted_at IS NULL")
      .one().count;
    if (live >= MAX_KEYS) return false;
    this.sql.exec("INSERT OR IGNORE INTO directory (id, created_at) VALUES (?, ?)", id, now);
    return true;
  }

  /** Marks a key deleted (it stays listed for the usage query). */
  unregister(id: string, now: number): void {
    if (!this.schema.exists()) return;
    this.sql.exec("UPDATE directory SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", now, id);
  }

  /** Live keys, oldest first, after the id `after` (a page of at most `limit`). */
  list(after: string | undefined, limit: number): DirectoryEntry[] {
    if (!this.schema.exists()) return [];
    return this.sql
      .exec<{ id: string; created_at: number }>(
        "SELECT id, created_at FROM directory WHERE deleted_at IS NULL AND (? IS NULL OR id > ?) ORDER BY id LIMIT ?",
        after ?? null,
        after ?? null,
        limit,
      )
      .toArray()
      .map((row) => ({ id: String(row.id), createdAt: Number(row.created_at) }));
  }

  /** Every key ever listed, deleted ones included (their usage counts). */
  all(): DirectoryEntry[] {
    if (!this.schema.exists()) return [];
    // Keys deleted before the usage retention have no usage left to sum.
    this.sql.exec(
      "DELETE FROM directory WHERE deleted_at IS NOT NULL AND deleted_at < ?",
      Date.now() - USAGE_RETENTION_MS,
    );
    return this.sql
      .exec<{ id: string; created_at: number; deleted_at: number | null }>(
        "SELECT id, created_at, deleted_at FROM directory ORDER BY id",
      )
      .toArray()
      .map((row) => ({
        id: String(row.id),
        createdAt: Number(row.created_at),
        ...(row.deleted_at === null ? {} : { deletedAt: Number(row.deleted_at) }),
      }));
  }

  // ------------------------------------------------------------------------------------------------------

  private keyRow(): KeyRow | undefined {
    if (!this.schema.exists()) return undefined;
    if (this.row === null) {
      this.row = this.sql.exec<KeyRow>("SELECT id, hash, record, deleted_at FROM key").toArray()[0];
    }
    return this.row;
  }

  private spent(period: string): number {
    if (!this.schema.exists()) return 0;
    return (
      this.sql.exec<{ usd: number }>("SELECT usd FROM spend WHERE period = ?", period).toArray()[0]?.usd ?? 0
    );
  }

  /** The cost held by admitted calls that have not ended (for at most {@link RESERVATION_MS}). */
  private inFlightUsd(now: number): number {
    return (
      this.sql
        .exec<{ usd: number | null }>(
          "SELECT SUM(reserved_usd) AS usd FROM admissions WHERE settled = 0 AND at > ?",
          now - RESERVATION_MS,
        )
        .one().usd ?? 0
    );
  }

  /**
   * Forgets what nothing counts any more: window entries (settled, or held past the longest hold), and —
   * once an hour — usage past its retention and the spend of days and months already over.
   */
  private prune(now: number): void {
    this.sql.exec(
      "DELETE FROM admissions WHERE at <= ? AND (settled = 1 OR at <= ?)",
      now - WINDOW_MS,
      now - RESERVATION_MS,
    );
    if (now - this.pruned < HOUR_MS) return;
    this.pruned = now;
    this.sql.exec("DELETE FROM usage WHERE hour < ?", now - USAGE_RETENTION_MS);
    // The current and the previous day and month stay (a query near midnight); older ones are done.
    const yesterday = periodKey("day", now - 24 * HOUR_MS);
    const lastMonth = periodKey(
      "month",
      Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 1, 1),
    );
    this.sql.exec("DELETE FROM spend WHERE period LIKE 'day:%' AND period < ?", yesterday);
    this.sql.exec("DELETE FROM spend WHERE period LIKE 'month:%' AND period < ?", lastMonth);
  }
}
