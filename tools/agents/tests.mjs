// The agent tests run by run.mjs. Each runs a CLI exactly as docs/anthropic.md ("Coding agents") tells a user to,
// then checks what it printed, its exit code, and the user's request log (GET /api/v1/usage/me/activity).

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FAKE_ANSWER, FAKE_MODEL } from './fake-openai.mjs';

const DEMO_MODEL = 'demo-chat';
const DEMO_ANSWER = (said) => `Hello from Switchyard's demo model. You said: "${said}".`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** What a CLI run must have done: exit 0 and print `expected`. */
function answered(result, expected, what) {
  const printed = result.stdout.trim();
  check(
    result.code === 0 && printed.includes(expected),
    `${what} exited ${result.code ?? result.signal} and printed ${JSON.stringify(printed.slice(-600))}, not ${JSON.stringify(expected)}\n` +
      `stderr: ${result.stderr.trim().slice(-1500)}`,
  );
}

/**
 * The calls the CLI made, as the user's request log shows them: `count` new records of `method` on `model`, each
 * successful, on the user's key, with a cost above 0 that is what the call was charged. Usage records are written
 * in batches: the log is read until they are there (bounded).
 */
async function logged(user, before, { method, model, count }) {
  const deadline = Date.now() + 15_000;
  let fresh = [];
  while (Date.now() < deadline) {
    fresh = (await user.activity()).filter((item) => !before.has(item.id));
    if (fresh.length >= count) break;
    await sleep(200);
  }
  check(fresh.length === count, `the request log shows ${fresh.length} new calls, not ${count}`);
  for (const item of fresh) {
    check(
      item.method === method && item.model === model && item.status === 'success' && item.apiKeyId === user.keyId,
      `a logged call is ${JSON.stringify({ method: item.method, model: item.model, status: item.status, key: item.apiKeyId })}`,
    );
    check(
      item.cost > 0 && item.money?.charged === item.cost,
      `a logged call cost ${item.cost}, charged ${item.money?.charged}`,
    );
  }
  return fresh;
}

const ids = async (user) => new Set((await user.activity()).map((item) => item.id));

/** Claude Code's environment, as the recipe in docs/anthropic.md has it. */
function claudeEnv(baseUrl, credential, model) {
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ...credential,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
  };
}

/** Runs `claude -p PROMPT` with the recipe's environment; returns the run and the user. */
async function claude(ctx, { name, server = 'demo', model = DEMO_MODEL, prompt, credential }) {
  const api = await ctx.server(server);
  const user = await ctx.newUser(api, name);
  const before = await ids(user);
  const { env, home } = await ctx.cliEnv(name, claudeEnv(api.baseUrl, credential(user.key), model));
  const result = await ctx.run(ctx.bin('claude'), ['-p', prompt], { cwd: home, env });
  return { result, user, before };
}

/** Codex's config.toml, as the recipe in docs/anthropic.md has it. */
export function codexConfig(baseUrl, model) {
  return `model = "${model}"
model_provider = "switchyard"
# The gateway refuses provider-side search (its cost cannot be bounded before the call): Codex's own is turned off.
web_search = "disabled"

[model_providers.switchyard]
name = "Switchyard"
base_url = "${baseUrl}/v1"
env_key = "SWITCHYARD_API_KEY"
wire_api = "responses"
`;
}

/** The Gemini CLI's settings, as the recipe in docs/gemini.md has them: the API key sign-in, nothing sent to Google. */
const GEMINI_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/** Runs `gemini -m MODEL -p PROMPT` with the recipe's environment; returns the run and the user. */
async function gemini(ctx, { name, prompt }) {
  const api = await ctx.server('demo');
  const user = await ctx.newUser(api, name);
  const before = await ids(user);
  const { env, home } = await ctx.cliEnv(name, {
    GOOGLE_GEMINI_BASE_URL: api.baseUrl,
    GEMINI_API_KEY: user.key,
    // A headless run in a folder the CLI has not been told to trust (docs/gemini.md).
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  });
  await mkdir(join(home, '.gemini'), { recursive: true });
  await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS));
  const result = await ctx.run(ctx.bin('gemini'), ['-m', DEMO_MODEL, '-p', prompt], { cwd: home, env });
  return { result, user, before };
}

export const TESTS = [
  {
    name: 'claude-code › ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, the demo model',
    async run(ctx) {
      const prompt = 'Say hello to Switchyard';
      const { result, user, before } = await claude(ctx, {
        name: 'claude-api-key',
        prompt,
        credential: (key) => ({ ANTHROPIC_API_KEY: key }),
      });
      answered(result, DEMO_ANSWER(prompt), 'claude');
      await logged(user, before, { method: 'messages', model: DEMO_MODEL, count: 1 });
    },
  },
  {
    name: 'claude-code › ANTHROPIC_AUTH_TOKEN, the demo model',
    async run(ctx) {
      const prompt = 'Say hello with a bearer token';
      const { result, user, before } = await claude(ctx, {
        name: 'claude-auth-token',
        prompt,
        credential: (key) => ({ ANTHROPIC_AUTH_TOKEN: key }),
      });
      answered(result, DEMO_ANSWER(prompt), 'claude');
      await logged(user, before, { method: 'messages', model: DEMO_MODEL, count: 1 });
    },
  },
  {
    name: 'claude-code › a turn that uses a tool (the demo model asks for Read, Claude Code runs it)',
    async run(ctx) {
      const { result, user, before } = await claude(ctx, {
        name: 'claude-tool',
        prompt: 'Use the Read tool',
        credential: (key) => ({ ANTHROPIC_API_KEY: key }),
      });
      // The demo model asked for Read with its placeholder path; Claude Code ran it and sent the result back.
      answered(result, 'The Read tool returned: "', 'claude');
      check(/File does not exist/.test(result.stdout), `the tool result is not the Read tool's: ${result.stdout}`);
      await logged(user, before, { method: 'messages', model: DEMO_MODEL, count: 2 });
    },
  },
  {
    name: 'codex › a custom provider on /v1/responses, the demo model',
    async run(ctx) {
      const api = await ctx.server('demo');
      const user = await ctx.newUser(api, 'codex');
      const before = await ids(user);
      const { env, home } = await ctx.cliEnv('codex', { SWITCHYARD_API_KEY: user.key });
      env.CODEX_HOME = join(home, '.codex');
      await mkdir(env.CODEX_HOME, { recursive: true });
      await writeFile(join(env.CODEX_HOME, 'config.toml'), codexConfig(api.baseUrl, DEMO_MODEL));
      const prompt = 'Say hello to Switchyard';
      const result = await ctx.run(ctx.bin('codex'), ['exec', '--skip-git-repo-check', prompt], { cwd: home, env });
      answered(result, DEMO_ANSWER(prompt), 'codex');
      await logged(user, before, { method: 'responses', model: DEMO_MODEL, count: 1 });
    },
  },
  {
    name: 'gemini-cli › GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY, the demo model',
    async run(ctx) {
      const prompt = 'Say hello to Switchyard';
      const { result, user, before } = await gemini(ctx, { name: 'gemini-cli', prompt });
      answered(result, DEMO_ANSWER(prompt), 'gemini');
      await logged(user, before, { method: 'generate_content', model: DEMO_MODEL, count: 1 });
    },
  },
  {
    name: 'gemini-cli › a turn that uses a tool (the demo model asks for list_directory, the CLI runs it)',
    async run(ctx) {
      const { result, user, before } = await gemini(ctx, {
        name: 'gemini-cli-tool',
        prompt: 'Use the list_directory tool',
      });
      // The demo model asked for list_directory with its placeholder path; the CLI ran it and sent the result back.
      answered(result, 'The list_directory tool returned: "', 'gemini');
      check(/ENOENT|Error listing directory/.test(result.stdout), `the tool result is not the CLI's: ${result.stdout}`);
      await logged(user, before, { method: 'generate_content', model: DEMO_MODEL, count: 2 });
    },
  },
  {
    name: 'claude-code › a translated model (an OpenAI-compatible provider behind the Messages face)',
    async run(ctx) {
      const seen = ctx.fake.received.length;
      const { result, user, before } = await claude(ctx, {
        name: 'claude-translated',
        server: 'translated',
        model: FAKE_MODEL,
        prompt: 'Say hello through a translated model',
        credential: (key) => ({ ANTHROPIC_API_KEY: key }),
      });
      answered(result, FAKE_ANSWER, 'claude');
      await logged(user, before, { method: 'messages', model: FAKE_MODEL, count: 1 });
      // What reached the provider: a chat completion, Claude Code's system prompt first and its system message
      // among the messages where it was, the bound the call reserved for, and none of Anthropic's own fields.
      const sent = ctx.fake.received.slice(seen).filter((request) => request.path === '/v1/chat/completions');
      check(sent.length === 1, `the fake provider got ${sent.length} chat completions`);
      const body = sent[0].body;
      const roles = body.messages.map((message) => message.role);
      check(roles[0] === 'system' && roles.includes('user'), `the roles sent were ${roles.join(', ')}`);
      check(
        roles.lastIndexOf('system') > roles.indexOf('user'),
        `no system message after the question: ${roles.join(', ')}`,
      );
      check(body.max_tokens > 0 && body.max_tokens <= 8192, `max_tokens ${body.max_tokens}`);
      for (const field of ['thinking', 'context_management', 'output_config', 'system', 'metadata'])
        check(!(field in body), `${field} reached the OpenAI-compatible provider`);
      check(body.stream === true && body.stream_options?.include_usage === true, 'the stream did not ask for usage');
    },
  },
];
