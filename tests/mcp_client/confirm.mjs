// The official MCP TypeScript SDK client as a person's client: it shows each question the
// server asks (elicitation/create, form mode) and answers it as told.
//
//   node confirm.mjs ANSWER CALLS_JSON COMMAND [ARG ...]
//
// ANSWER is the person's answer to every question: "yes" (accept, confirm: true), "no"
// (accept, confirm: false), "decline" or "cancel". CALLS_JSON is a JSON array of
// tools/call params. The client declares the elicitation capability (forms), starts
// COMMAND, makes each call and prints one JSON object:
// {"questions": [{"message", "requestedSchema"}], "calls": [result, ...]}.
// tests/mcp/test_mcp_confirm_typescript.py runs it against the Gmail spec over a fake.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [answer, callsJson, command, ...args] = process.argv.slice(2);
const answers = {
  yes: { action: "accept", content: { confirm: true } },
  no: { action: "accept", content: { confirm: false } },
  decline: { action: "decline" },
  cancel: { action: "cancel" },
};
if (!(answer in answers)) {
  throw new Error(`ANSWER must be one of ${Object.keys(answers).join(", ")}, not ${answer}`);
}
const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client(
  { name: "toolspecs-tests", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } },
);
const questions = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const { message, requestedSchema } = request.params;
  questions.push({ message, requestedSchema });
  return answers[answer];
});
await client.connect(transport);

const calls = [];
for (const params of JSON.parse(callsJson)) {
  calls.push(await client.callTool(params, undefined, { timeout: 120000 }));
}
process.stdout.write(JSON.stringify({ questions, calls }) + "\n");
await client.close();
