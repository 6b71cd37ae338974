// The official MCP TypeScript SDK client, driving an MCP server command over stdio, or
// a server's URL over streamable HTTP.
//
//   node client.mjs CALLS_JSON COMMAND [ARG ...]
//   MCP_HTTP_HEADERS='{"Authorization": "Bearer ..."}' node client.mjs CALLS_JSON URL
//
// CALLS_JSON is a JSON array of tools/call params ({"name": ..., "arguments": {...}}),
// or of resources/read params ({"uri": ...}).
// The client starts COMMAND (or connects to URL, sending the headers of MCP_HTTP_HEADERS
// with every request), lists its tools, makes each call asking for progress, and
// prints one JSON object: {"server", "tools", "calls": [{"result", "progress"}]} (a read:
// {"read"}, or {"error": {"code", "message"}} when the server refused it), and, when the
// server offers prompts, "prompts" (its list) and "gotPrompts": the prompts/get answers
// for each {"name", "arguments"} of the JSON array MCP_GET_PROMPTS.
// tests/mcp/test_mcp_typescript_client.py runs it against `toolspecs serve --sandbox`,
// tests/mcp/test_mcp_replicas.py against replicas behind nginx.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [callsJson, command, ...args] = process.argv.slice(2);
const transport = /^https?:\/\//.test(command)
  ? new StreamableHTTPClientTransport(new URL(command), {
      requestInit: { headers: JSON.parse(process.env.MCP_HTTP_HEADERS || "{}") },
    })
  : new StdioClientTransport({
      command,
      args,
      env: { ...process.env },
      stderr: "inherit",
    });
const client = new Client({ name: "toolspecs-tests", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const calls = [];
for (const params of JSON.parse(callsJson)) {
  if ("uri" in params) {
    try {
      calls.push({ read: await client.readResource(params) });
    } catch (error) {
      calls.push({ error: { code: error.code, message: error.message } });
    }
    continue;
  }
  const progress = [];
  const result = await client.callTool(params, undefined, {
    onprogress: (notification) => progress.push(notification),
    timeout: 120000,
  });
  calls.push({ result, progress });
}
const out = { server: client.getServerVersion(), tools, calls };
if (client.getServerCapabilities()?.prompts) {
  out.prompts = (await client.listPrompts()).prompts;
  out.gotPrompts = [];
  for (const params of JSON.parse(process.env.MCP_GET_PROMPTS || "[]")) {
    out.gotPrompts.push(await client.getPrompt(params));
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();
