/**
 * `SessionObject`: one Durable Object per session id, holding which member of each route's pool the
 * session is pinned to: the pin store of the route's `affinityPool`. Later calls of the session go to the
 * same member, so prompt caches (and self-hosted KV caches) hit; only a failover moves a pin.
 * SQLite-backed; the schema is ensured on every wake.
 *
 * @module
 */
import { DurableObject } from "cloudflare:workers";

/** A session's pin on one route. */
export interface SessionPin {
  route: string;
  /** The pool member's id (its position in the route's pool). */
  member: string;
  /** How many times this pin moved because its member failed. */
  failovers: number;
  pinnedAt: number;
  updatedAt: number;
}

/** The SQLite row limit is 2 MB; a pin row is tiny, but the schema version lets later releases migrate. */
const SCHEMA_VERSION = 1;

/** Durable Object: per-session affinity pins. RPC methods return plain data. */
export class SessionObject extends DurableObject {
  /** The tables are made by the first write: a read of a session that was never pinned stores nothing. */
  private ready = false;

  /** The member id this session is pinned to on `route`, if any. */
  get(route: string): string | undefined {
    return this.exists() ? this.read(route)?.member : undefined;
  }

  /**
   * Pins the session to `member` on `route`. Moving an existing pin counts as a failover (the pool moves a
   * pin only when its member failed).
   */
  set(route: string, member: string): SessionPin {
    if (!this.ready) {
      ensureSchema(this.ctx.storage.sql);
      this.ready = true;
    }
    const existing = this.read(route);
    const now = Date.now();
    const moved = existing !== undefined && existing.member !== member;
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO pins (route, member, failovers, pinned_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      route,
      member,
      (existing?.failovers ?? 0) + (moved ? 1 : 0),
      existing?.pinnedAt ?? now,
      now,
    );
    return this.read(route)!;
  }

  /** Every pin of the session; undefined when the session was never pinned. */
  pins(): SessionPin[] | undefined {
    if (!this.exists()) return undefined;
    return this.ctx.storage.sql
      .exec<{ route: string; member: string; failovers: number; pinned_at: number; updated_at: number }>(
        "SELECT route, member, failovers, pinned_at, updated_at FROM pins ORDER BY route",
      )
      .toArray()
      .map(rowToPin);
  }

  /** Forgets the session: every pin, and its storage. How many pins there were; undefined when none ever. */
  async clear(): Promise<number | undefined> {
    const pins = this.pins();
    if (pins === undefined) return undefined;
    await this.ctx.storage.deleteAll();
    this.ready = false;
    return pins.length;
  }

  /** Whether this session has tables (was ever pinned), asked without creating anything. */
  private exists(): boolean {
    if (this.ready) return true;
    this.ready =
      this.ctx.storage.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pins'")
        .toArray().length > 0;
    return this.ready;
  }

  private read(route: string): SessionPin | undefined {
    const row = this.ctx.storage.sql
      .exec<{ route: string; member: string; failovers: number; pinned_at: number; updated_at: number }>(
        "SELECT route, member, failovers, pinned_at, updated_at FROM pins WHERE route = ?",
        route,
      )
      .toArray()[0];
    return row ? rowToPin(row) : undefined;
  }
}

function ensureSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS pins (
    route TEXT PRIMARY KEY,
    member TEXT NOT NULL,
    failovers INTEGER NOT NULL DEFAULT 0,
    pinned_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`);
  sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  sql.exec("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", String(SCHEMA_VERSION));
}

function rowToPin(row: {
  route: string;
  member: string;
  failovers: number;
  pinned_at: number;
  updated_at: number;
}): SessionPin {
  return {
    route: row.route,
    member: String(row.member),
    failovers: row.failovers,
    pinnedAt: row.pinned_at,
    updatedAt: row.updated_at,
  };
}
