/**
 * The client the official MCP conformance suite (@modelcontextprotocol/conformance,
 * client leg) drives, built only on the public `toolwright/client` API:
 *
 *   npx conformance client --command "npx tsx examples/conformance/client.ts" --scenario tools_call
 *
 * The suite starts a scenario server, appends its URL to the command and names the
 * scenario in MCP_CONFORMANCE_SCENARIO (with the revision in MCP_CONFORMANCE_PROTOCOL_VERSION
 * and scenario data, such as pre-registered credentials, in MCP_CONFORMANCE_CONTEXT).
 * What a scenario checks is how the client behaves on the wire, so this program does what
 * an application would: connect, list, call; the library does the rest (era, headers, SSE,
 * input requests, authorization). `npm run build` first: the package entry is dist/.
 */
import {
  idJagAssertion,
  SkillVerificationError,
  ToolClient,
  type AuthorizationPrompt,
  type InputRequest,
  type InputResult,
  type ListedTool,
  type OAuthOptions,
  type ToolClientOptions,
} from 'toolwright/client';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const url = process.argv[2];
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const context = readContext();

/** This client's Client ID Metadata Document: the suite's authorization servers accept this URL without fetching it. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** Suite scenarios whose mock serves tools/list only: listing is the whole exercise. */
const LIST_ONLY = new Set(['json-schema-ref-no-deref']);

async function main(): Promise<void> {
  if (!url || !scenario) {
    process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<scenario> tsx examples/conformance/client.ts <server-url>\n');
    process.exit(2);
  }
  const client = await ToolClient.connect({ url }, clientOptions());
  try {
    if (scenario.startsWith('sep-2640-client-')) return await useSkills(client);
    const tools = await client.listTools();
    if (LIST_ONLY.has(scenario)) return;
    for (const call of plannedCalls(tools)) {
      await client.callTool(call.name, call.arguments);
    }
  } finally {
    await client.close();
  }

  /** Asks the server's questions back with the answers a consenting user would give. */
  async function answer(request: InputRequest): Promise<InputResult> {
    // SEP-2322: another call while one waits for input must carry none of its state.
    if (scenario === 'sep-2322-client-request-state' && request.toolName === 'test_mrtr_echo_state') {
      await client.callTool('test_mrtr_unrelated', {});
    }
    return answerFor(request);
  }

  function clientOptions(): ToolClientOptions {
    return {
      // The suite's revision fixes the lifecycle: 2026-07-28 is stateless, dated revisions before it initialize.
      era: revision === undefined ? 'auto' : revision >= '2026-07-28' ? 'modern' : 'legacy',
      clientInfo: { name: 'toolwright-conformance-client', version: '0.1.0' },
      onInputRequest: (request) => answer(request),
      // Generous: the suite's scenario servers share one process on a possibly busy machine, and an authorization flow is many requests.
      timeoutMs: 60_000,
      onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
      ...(scenario.startsWith('auth/') ? { authorization: authorization() } : {}),
    };
  }
}

/**
 * A host of the Skills extension (SEP-2640): it lists the skills (reading no file: no prefetch)
 * and, when the model asks for one (the verify-* scenarios), loads it, which verifies SKILL.md
 * against its entry before anything else of the skill is read.
 */
async function useSkills(client: ToolClient): Promise<void> {
  const [entry] = await client.skills.list();
  if (!entry || scenario === 'sep-2640-client-no-prefetch') return;
  try {
    await client.skills.load(entry);
  } catch (err) {
    if (!(err instanceof SkillVerificationError)) throw err;
    process.stderr.write(`skill not loaded: ${err.message}\n`);
    return;
  }
  for (const file of entry.resources === 'dynamic' ? [] : entry.resources) {
    if (file.uri !== entry.uri) await client.skills.readFile(entry, file.uri);
  }
}

/**
 * OAuth as an application would set it up. The suite's authorization servers approve at
 * once, so "the browser" is one request whose redirect is the authorization response;
 * pre-registered and client_credentials identities come in the scenario's context.
 */
function authorization(): OAuthOptions {
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  if (scenario === 'auth/enterprise-managed-authorization') {
    // The user's ID token from the enterprise IdP becomes an ID-JAG for the MCP server's authorization server.
    const idJag = idJagAssertion({
      tokenEndpoint: String(context.idp_token_endpoint),
      clientId: String(context.idp_client_id),
      idToken: String(context.idp_id_token),
    });
    return { grantType: 'jwt-bearer', clientId, clientSecret, assertion: idJag };
  }
  if (scenario === 'auth/wif-jwt-bearer') {
    // The workload's identity token, as its platform would hand it over.
    return { grantType: 'jwt-bearer', clientId, assertion: String(context.valid_jwt) };
  }
  if (scenario.startsWith('auth/client-credentials')) {
    const pem = typeof context.private_key_pem === 'string' ? context.private_key_pem : undefined;
    return {
      grantType: 'client_credentials',
      clientId,
      ...(pem
        ? { privateKey: { privateKey: pem, algorithm: typeof context.signing_algorithm === 'string' ? context.signing_algorithm : 'ES256' } }
        : { clientSecret }),
    };
  }
  return {
    ...(clientId ? { clientId, clientSecret } : { clientMetadataUrl: CLIENT_METADATA_URL }),
    clientMetadata: { client_name: 'toolwright-conformance-client' },
    redirectUri: 'http://localhost:3000/callback',
    authorize: followAuthorization,
  };
}

/** Plays the browser: asks the authorization endpoint and returns where it redirects to. */
async function followAuthorization(prompt: AuthorizationPrompt): Promise<string> {
  const response = await fetch(prompt.url, { redirect: 'manual', signal: prompt.signal });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
  return new URL(location, prompt.url).href;
}

interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What to call: the calls the scenario names in its context, else every listed tool once. */
function plannedCalls(tools: ListedTool[]): PlannedCall[] {
  const listed = new Set(tools.map((t) => t.name));
  const named = Array.isArray(context.toolCalls) ? (context.toolCalls as PlannedCall[]) : undefined;
  if (named) return named.filter((c) => listed.has(c.name));
  if (scenario === 'json-schema-2020-12-preservation') {
    // Round-trips the schema as listed: the scenario diffs it against its fixture.
    const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    return focal ? [{ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } }] : [];
  }
  const calls = tools.map((t) => ({ name: t.name, arguments: sampleObject(t.inputSchema) }));
  // The unrelated tool is called from inside the stateful tool's input round instead.
  return scenario === 'sep-2322-client-request-state' ? calls.filter((c) => c.name !== 'test_mrtr_unrelated') : calls;
}

function answerFor(request: InputRequest): InputResult {
  switch (request.method) {
    case 'elicitation/create': {
      const schema = request.params.requestedSchema;
      // Fields with defaults are left out on purpose: the client fills them in (SEP-1034).
      const content = isObject(schema) ? sampleObject(schema, { skipDefaults: true }) : {};
      return { action: 'accept', content: content as Record<string, string | number | boolean | string[]> };
    }
    case 'sampling/createMessage':
      return { role: 'assistant', content: { type: 'text', text: 'A sampled answer.' }, model: 'conformance-model', stopReason: 'endTurn' };
    case 'roots/list':
      return { roots: [] };
  }
}

/** A value for each required property (and booleans the form asks for), from the schema alone. */
function sampleObject(schema: Record<string, unknown>, options: { skipDefaults?: boolean } = {}): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    if (options.skipDefaults && property.default !== undefined) continue;
    if (required.has(name) || property.type === 'boolean' || options.skipDefaults) out[name] = sampleValue(property);
  }
  return out;
}

function sampleValue(schema: Record<string, unknown>): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return sampleObject(schema);
    case 'null':
      return null;
    default:
      return 'test';
  }
}

function readContext(): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`toolwright conformance client: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
