/**
 * `modelwire/mcp`: tools from Model Context Protocol servers over Streamable HTTP, for `runAgent` — on
 * `fetch` only, so it runs in Workers, Deno, Bun and Node. `mcpClient({ url, headers })` speaks the
 * protocol (session, version negotiation, paginated `tools/list`, `tools/call`); `client.tools()` gives
 * the server's tools as agent tools; `mcpToolContent` is how a tool result becomes content parts.
 *
 * @example
 * ```ts
 * import { mcpClient } from "modelwire/mcp";
 * const docs = mcpClient({ url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${token}` } });
 * const result = await runAgent({ provider, tools: await docs.tools(), messages });
 * await docs.close();
 * ```
 *
 * @module
 */
export { type ToolOutput, toolOutput } from "../agent/tool-output.ts";
export {
  MCP_PROTOCOL_VERSIONS,
  type McpClient,
  type McpClientOptions,
  type McpNotification,
  type McpRequestOptions,
  type McpServerInfo,
  type McpTool,
  type McpToolsOptions,
  mcpClient,
} from "./mcp-client.ts";
export { McpError, type McpErrorInit, type McpErrorKind } from "./mcp-error.ts";
export { type McpCallToolResult, type McpToolContent, mcpToolContent } from "./mcp-tool-content.ts";
