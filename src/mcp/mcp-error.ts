/**
 * `McpError`: every failure of the MCP client, naming the server's URL (scheme, host and path only) and
 * never a header's value.
 *
 * @module
 */

/**
 * What went wrong:
 * - `http`: the server answered an HTTP error status (`status` says which);
 * - `rpc`: a JSON-RPC error (`code`, `message` and `data` are the server's);
 * - `protocol`: an answer that breaks the Streamable HTTP rules (a wrong content type, no response on the
 *   stream, more pages or messages than the limits allow, an unsupported protocol version);
 * - `network`: the request never got an answer; `timeout`: it took longer than `timeoutMs`;
 * - `aborted`: the caller's signal; `closed`: the client was closed.
 */
export type McpErrorKind = "http" | "rpc" | "protocol" | "network" | "timeout" | "aborted" | "closed";

/** The fields of an {@link McpError}. */
export interface McpErrorInit {
  kind: McpErrorKind;
  message: string;
  /** The server as errors show it (quoted, without user info or query). */
  server: string;
  /** The JSON-RPC method that failed. */
  method?: string | undefined;
  status?: number | undefined;
  code?: number | undefined;
  data?: unknown;
  cause?: unknown;
}

/**
 * A failure of the MCP client. `message` reads `MCP server "<url>": <what happened>`, credentials removed.
 *
 * @example
 * ```ts
 * try { await client.callTool("search", { q }); }
 * catch (error) { if (McpError.is(error) && error.kind === "rpc") console.log(error.code, error.message); }
 * ```
 */
export class McpError extends Error {
  override readonly name = "McpError";
  readonly kind: McpErrorKind;
  /** The server as the message names it. */
  readonly server: string;
  readonly method: string | undefined;
  /** The HTTP status, for `http` errors. */
  readonly status: number | undefined;
  /** The JSON-RPC error code, for `rpc` errors (and HTTP errors whose body was a JSON-RPC error). */
  readonly code: number | undefined;
  /** The JSON-RPC error's `data`. */
  readonly data: unknown;

  /** An error whose message is `init.message` after the server's name; `init` is already scrubbed. */
  constructor(init: McpErrorInit) {
    super(
      `MCP server ${init.server}${init.method ? ` (${init.method})` : ""}: ${init.message}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.kind = init.kind;
    this.server = init.server;
    this.method = init.method;
    this.status = init.status;
    this.code = init.code;
    this.data = init.data;
  }

  /** Whether `value` is an `McpError` (by name too, so a copy from another bundle counts). */
  static is(value: unknown): value is McpError {
    return value instanceof McpError || (value instanceof Error && value.name === "McpError");
  }
}
