/**
 * The tools of a route's MCP servers (the route config's `mcp`) for one task step: a client per server,
 * their tools listed beside the workflow's own (an MCP tool whose name a workflow tool has is renamed),
 * and one `close()` that ends every session after the step.
 *
 * @module
 */
import type { AgentTool } from "../agent/run-agent.ts";
import { ProviderError, type ProviderErrorKind } from "../core/provider-error.ts";
import { type McpClient, mcpClient } from "../mcp/mcp-client.ts";
import { McpError } from "../mcp/mcp-error.ts";
import type { RouteMcpServer } from "./config.ts";

/** The tools of one step, and how to end the sessions they opened. */
export interface RouteMcpTools {
  tools: AgentTool[];
  close(): Promise<void>;
}

/**
 * Connects to `servers` and returns `own` followed by every server's tools. A server that cannot be reached
 * or refuses is a `ProviderError` (provider `mcp`, model the server's URL): a network failure, a timeout,
 * a 429 or a 5xx is retryable, so the task tries the step again later; a 401 is `auth`. The token is
 * never in its message.
 */
export async function routeMcpTools(
  servers: readonly RouteMcpServer[],
  own: readonly AgentTool[],
  signal: AbortSignal,
): Promise<RouteMcpTools> {
  const clients: McpClient[] = [];
  const close = async () => {
    await Promise.all(clients.map((client) => client.close()));
  };
  if (servers.length === 0) return { tools: [...own], close };
  const tools: AgentTool[] = [...own];
  try {
    for (const server of servers) {
      const client = mcpClient({ url: server.url, headers: server.headers, fetch: server.fetch });
      clients.push(client);
      tools.push(...(await client.tools({ signal, reserved: tools.map((tool) => tool.name) })));
    }
  } catch (error) {
    await close();
    throw McpError.is(error) ? asProviderError(error) : error;
  }
  return { tools, close };
}

/** An MCP failure as the task runner reads failures: a kind, and whether trying later may help. */
function asProviderError(error: McpError): ProviderError {
  let kind: ProviderErrorKind = "server";
  if (error.kind === "network") kind = "network";
  else if (error.kind === "timeout") kind = "timeout";
  else if (error.kind === "aborted") kind = "aborted";
  else if (error.status === 401 || error.status === 403) kind = "auth";
  else if (error.status === 429) kind = "rate_limit";
  else if (error.status !== undefined && error.status < 500) kind = "bad_request";
  const retryable =
    kind === "network" ||
    kind === "timeout" ||
    kind === "rate_limit" ||
    (kind === "server" && error.kind === "http");
  return new ProviderError({
    kind,
    message: error.message,
    provider: "mcp",
    model: error.server,
    status: error.status,
    retryable,
    cause: error,
  });
}
