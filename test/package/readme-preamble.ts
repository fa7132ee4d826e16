/**
 * The names the README's snippets use without defining them (your environment, your history, your
 * tools), with the types a real program would give them. Check (d) of consumers.test.ts puts the lines a
 * snippet needs (the names it does not declare itself) above it, so every snippet type-checks as written
 * against the published package. One declaration per line; types only through `import("modelwire")`.
 */
declare const env: {
  ANTHROPIC_API_KEY: string;
  OPENAI_API_KEY: string;
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
  AWS_SESSION_TOKEN?: string;
  AWS_BEARER_TOKEN_BEDROCK?: string;
  MODEL_CHAIN: string;
  GEMINI_API_KEY: string;
  GOOGLE_SERVICE_ACCOUNT_JSON: string;
  MCP_TOKEN: string;
};
declare const apiKey: string;
declare const openaiKey: string;
declare const history: import("modelwire").MessageInput[];
declare const historyBefore: import("modelwire").MessageInput[];
declare const historyAfter: import("modelwire").MessageInput[];
declare const tools: import("modelwire").ToolSpecInput[];
declare const provider: import("modelwire").Provider;
declare const chain: import("modelwire").Provider;
declare const response: import("modelwire").Response;
declare const first: import("modelwire").Response;
declare const second: import("modelwire").Response;
declare const cooldownStore: import("modelwire").CooldownStore;
declare const geminiFactory: import("modelwire").ProviderFactory;
declare const sessionId: string;
declare const project: string;
declare const myTokens: { get(): Promise<string> };
declare const id: string;
declare const body: string;
declare const url: string;
declare const headers: Record<string, string>;
declare const db: { getTask(id: string): Promise<{ status: string }> };
declare const lookupTicket: import("modelwire").AgentTool;
declare const screenshot: Blob;
declare const claude: import("modelwire").Provider;
declare const haiku: import("modelwire").Provider;
declare const inline: import("modelwire").Content;
declare function showThinking(text: string): void;
declare function write(text: string): void;
declare function run(call: import("modelwire").ToolCall): Promise<string>;
declare function log(event: unknown): void;
declare function handle(event: string | undefined, data: unknown): void;

export {};
