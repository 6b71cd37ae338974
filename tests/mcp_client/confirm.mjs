// The official MCP TypeScript SDK client as a person's client: it shows each question the
// server asks (elicitation/create, form mode) and each page it asks to open (URL mode),
// and answers as told.
//
//   node confirm.mjs ANSWER CALLS_JSON COMMAND [ARG ...]
//
// ANSWER is the person's answer to every question: "yes" (accept, confirm: true), "no"
// (accept, confirm: false), "decline" or "cancel". A page (a sign-in) is opened on "yes":
// fetched, following its redirects, as a browser whose person agrees would, then accepted.
// CALLS_JSON is a JSON array of tools/call params. The client declares the elicitation
// capability (forms and URLs), starts COMMAND, makes each call and prints one JSON object:
// {"questions": [{"message", "requestedSchema"}], "pages": [{"message", "url", "status"}],
// "calls": [result, ...]}.
// tests/mcp/test_mcp_confirm_typescript.py and test_mcp_client_signin_typescript.py run it.
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
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
const questions = [];
const pages = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  if (request.params.mode === "url") {
    const { message, url } = request.params;
    const page = { message, url, status: null };
    pages.push(page);
    if (answer !== "yes") return answers[answer];
    page.status = (await fetch(url, { redirect: "follow" })).status;
    return { action: "accept" };
  }
  const { message, requestedSchema } = request.params;
  questions.push({ message, requestedSchema });
  return answers[answer];
});
await client.connect(transport);

const calls = [];
for (const params of JSON.parse(callsJson)) {
  calls.push(await client.callTool(params, undefined, { timeout: 120000 }));
}
process.stdout.write(JSON.stringify({ questions, pages, calls }) + "\n");
await client.close();
