/**
 * A Durable Object's SQLite tables made by its first write, not on every wake: an object that is only read
 * (a token that looks like a key, a stream id nobody started) stores nothing. Reads ask whether the tables
 * exist without making them.
 *
 * @module
 */

/** The tables of one object: `ensure` before a write, `exists` before a read, `forget` after `deleteAll`. */
export interface LazySchema {
  ensure(): void;
  exists(): boolean;
  forget(): void;
}

/** The lazy schema of `statements` (`CREATE … IF NOT EXISTS`), known to exist by its table `probe`. */
export function lazySchema(sql: SqlStorage, statements: readonly string[], probe: string): LazySchema {
  let ready = false;
  return {
    ensure() {
      if (ready) return;
      for (const statement of statements) sql.exec(statement);
      ready = true;
    },
    exists() {
      ready ||=
        sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", probe).toArray().length > 0;
      return ready;
    },
    forget() {
      ready = false;
    },
  };
}
