/**
 * Command-line arguments of `toolwire-stub`, parsed with `node:util` `parseArgs`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { unknownKeysText } from '../src/tool/check-options';
import type { AgentDefinition } from '../src/wire/protocol';
import { FEATURES, type Feature, featureOf } from '../src/wire/protocol';
import { parseKeysFile } from './admin';
import type { ApiKeyEntry } from './fleet';
import { silentLogger } from './logger';
import type { Model } from './model';
import { messageOf } from './openai-errors';
import { loadOpenAI, openAIChatModel } from './openai-model';
import { readAgents, resolveStubOptions, type StubServerOptions } from './options';
import { problemsText, SCRIPT_ENTRIES, type Script, scriptedModel, scriptProblems } from './scripted-model';

/** Usage text printed by `--help` and after a bad argument. */
export const USAGE = `Usage: toolwire-stub [options]

Starts the toolwire service stand-in and prints its ws:// URL on stdout (logs go to stderr). The agent UI
(a chat page for the agents given with --agents) is at http://<host>:<port>/#key=<api key>.

Options:
  --port <n>                   TCP port (default 0: a free port)
  --host <address>             interface to bind (default 127.0.0.1)
  --api-key <key>              accepted API key (printable ASCII, no spaces); repeat for several
                               (default: any key is accepted)
  --api-keys-file <path>       accepted API keys, one a line: <key> or <key> <tenant>; # comments. Read
                               again on SIGHUP (a socket on a key no longer listed is closed 4001)
  --admin-key <key>            key of the operator routes PUT /v1/admin/keys and /v1/admin/build (default:
                               TOOLWIRE_STUB_ADMIN_KEY; without either the routes are off)
  --cors <origin>              let web pages of this origin (e.g. http://localhost:5173) call the HTTP API;
                               repeat for several (default: none, only the stub's own pages such as the agent UI)
  --script <file.json>         scripted model: an array of turns, or { "<agent>": [turns] }. It is not a
                               language model: it plays the same turns whatever is asked. Without --script
                               and --openai-base-url the script is empty and every run fails saying so
  --agents <file.json>         agent definitions that POST /v1/runs may start by name
  --openai-base-url <url>      use an OpenAI-compatible chat-completions endpoint (key from OPENAI_API_KEY),
                               e.g. Ollama http://localhost:11434/v1, vLLM http://localhost:8000/v1,
                               LM Studio http://localhost:1234/v1 (needs the openai package, v6)
  --openai-model <name>        model name for --openai-base-url (default gpt-4o-mini)
  --openai-timeout-ms <n>      per attempt, and per silence in a streamed answer (default 60000)
  --openai-max-retries <n>     retries after a timeout, 408, 409, 429 or 5xx, with backoff (default 2)
  --openai-no-stream           ask for whole answers instead of streamed ones
  --call-deadline-ms <n>       per-call deadline (default 120000)
  --heartbeat-interval-ms <n>  heartbeat interval announced in welcome (default 15000)
  --session-grace-ms <n>       how long a dropped session stays resumable (default 60000)
  --max-payload-bytes <n>      largest frame accepted (default 1048576)
  --lease-ms <n>               with the feature lease: how long a running call's lease lasts without renewal;
                               a call whose client keeps renewing it is not cut at --call-deadline-ms
                               (default 45000, at least 1000)
  --max-call-duration-ms <n>   with the feature lease: the longest a leased call may run (default 86400000)
  --features <list>            protocol features the stub uses, comma-separated, all, or none for a plain version-1
                               service (default all: ${FEATURES.join(',')})
  --debug                      log debug lines too
  -h, --help                   print this text
`;

/** A decimal number literal. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** What the CLI should do. */
export type CliCommand =
  | { kind: 'help' }
  | {
      kind: 'start';
      options: Omit<StubServerOptions, 'logger'>;
      debug: boolean;
      /** `--api-keys-file`: its path (read again on SIGHUP) and the keys it held at start. */
      keysFile?: { path: string; keys: ApiKeyEntry[] };
    };

/** The flags, as `parseArgs` takes them. */
const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'api-keys-file': { type: 'string' },
  'admin-key': { type: 'string' },
  cors: { type: 'string', multiple: true },
  script: { type: 'string' },
  agents: { type: 'string' },
  'openai-base-url': { type: 'string' },
  'openai-model': { type: 'string' },
  'openai-timeout-ms': { type: 'string' },
  'openai-max-retries': { type: 'string' },
  'openai-no-stream': { type: 'boolean' },
  'call-deadline-ms': { type: 'string' },
  'heartbeat-interval-ms': { type: 'string' },
  'session-grace-ms': { type: 'string' },
  'max-payload-bytes': { type: 'string' },
  'lease-ms': { type: 'string' },
  'max-call-duration-ms': { type: 'string' },
  features: { type: 'string' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** `argv` read without refusing anything (`parseArgs` not strict): what the two texts below look at. */
function looseTokens(argv: readonly string[]) {
  return (
    parseArgs({ args: [...argv], strict: false, allowPositionals: true, tokens: true, options: FLAGS })
      .tokens ?? []
  );
}

/**
 * Every flag of `argv` that `toolwire-stub` does not have, in one message with a "did you mean" each, as the
 * stub's options and script keys are refused (`unknown flags "--prot" (did you mean "--port"?) and "--verbose";
 * known flags: …`); `parseArgs` itself names only the first. The negation of a boolean flag, whose nearest name
 * means the opposite, says instead that the flag is off unless given (`"--no-debug" (leave "--debug" out: it is
 * off unless given)`). `undefined` when every flag is known.
 */
function unknownFlagsText(argv: readonly string[]): string | undefined {
  const tokens = looseTokens(argv);
  const unknown: string[] = [];
  const notes: Record<string, string> = {};
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(FLAGS, token.name)) continue;
    if (unknown.includes(token.rawName)) continue;
    unknown.push(token.rawName);
    const negated = token.rawName.startsWith('--no-') ? token.name.slice('no-'.length) : undefined;
    if (negated !== undefined && Object.hasOwn(FLAGS, negated) && FLAGS[negated as Flag].type === 'boolean')
      notes[token.rawName] = `leave "--${negated}" out: it is off unless given`;
  }
  if (unknown.length === 0) return undefined;
  const known = [...Object.keys(FLAGS).map((name) => `--${name}`), '-h'];
  return unknownKeysText(unknown, known, { noun: 'flag', notes });
}

/** A flag's name, without its `--`. */
type Flag = keyof typeof FLAGS;

/**
 * The refusal of an argument with no flag before it (`parseArgs` quotes it): quoted unless the command line holds a
 * key, which it may be (`--api-key key-1 key-2`), and which stderr (a terminal, a CI log) must not show.
 */
function positionalText(argv: readonly string[]): string {
  const tokens = looseTokens(argv);
  const positional = tokens.find((token) => token.kind === 'positional');
  const keyed = argv.some((arg) => KEY_FLAGS.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
  if (positional === undefined) return 'unexpected argument; this command takes no positional arguments';
  return keyed
    ? `unexpected argument ${positional.index + 1} (not shown: it may be a key); this command takes no positional arguments: give each key its own --api-key`
    : `unexpected argument ${JSON.stringify(positional.value)}; this command takes no positional arguments`;
}

/** The flags whose value is a key. */
const KEY_FLAGS: readonly string[] = ['--api-key', '--admin-key'];

/**
 * Turns argv (without `node` and the script) into a command.
 * @throws Error with a message naming the argument, for unknown flags (every one), a bad number or an unreadable
 *   file.
 */
export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  const unknownFlags = unknownFlagsText(argv);
  if (unknownFlags !== undefined) throw new Error(unknownFlags);
  let values: ReturnType<typeof parseArgs<{ options: typeof FLAGS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: FLAGS }));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw error;
    throw new Error(positionalText(argv));
  }
  if (values.help) return { kind: 'help' };
  const options: Omit<StubServerOptions, 'logger'> = {};
  // A number as written (`1.5`, `-1` included), else the text itself: the one check that knows the flag's range
  // (startStubServer's or openAIChatModel's) refuses it, so every refusal of a flag reads alike
  // (`--call-deadline-ms must be an integer ≥ 1, got 1.5`, `--port must be an integer ≥ 0, got "eighty"`).
  const integer = (raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    return (NUMBER.test(raw.trim()) ? Number(raw) : raw) as number;
  };
  const port = integer(values.port);
  if (port !== undefined) options.port = port;
  if (values.host !== undefined) options.host = values.host;
  if (values['api-key'] !== undefined) options.apiKeys = values['api-key'];
  const adminKey = values['admin-key'] ?? env.TOOLWIRE_STUB_ADMIN_KEY;
  if (adminKey !== undefined && adminKey !== '') options.adminKey = adminKey;
  if (values.cors !== undefined) options.corsOrigins = values.cors;
  let keysFile: { path: string; keys: ApiKeyEntry[] } | undefined;
  const keysPath = values['api-keys-file'];
  if (keysPath !== undefined) {
    if (values['api-key'] !== undefined)
      throw new Error('--api-key and --api-keys-file cannot be used together');
    const keys = readKeysFile(keysPath, options.adminKey);
    keysFile = { path: keysPath, keys };
    options.apiKeys = keys.map((entry) => (typeof entry === 'string' ? entry : entry.key));
  }
  const numeric: Array<[keyof StubServerOptions & string, string]> = [
    ['callDeadlineMs', 'call-deadline-ms'],
    ['heartbeatIntervalMs', 'heartbeat-interval-ms'],
    ['sessionGraceMs', 'session-grace-ms'],
    ['maxPayloadBytes', 'max-payload-bytes'],
    ['leaseMs', 'lease-ms'],
    ['maxCallDurationMs', 'max-call-duration-ms'],
  ];
  for (const [key, flag] of numeric) {
    const value = integer(values[flag as keyof typeof values] as string | undefined);
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  }
  if (values.features !== undefined) options.features = parseFeatures(values.features);
  checkAsFlags(options);
  if (values.script !== undefined && values['openai-base-url'] !== undefined) {
    throw new Error('--script and --openai-base-url cannot be used together');
  }
  const files = readFiles(values.script, values.agents);
  let model: Model | undefined;
  if (files.script !== undefined) model = scriptedModel(files.script);
  const openAIOnly = (
    ['openai-model', 'openai-timeout-ms', 'openai-max-retries', 'openai-no-stream'] as const
  ).find((flag) => values[flag] !== undefined);
  if (openAIOnly !== undefined && values['openai-base-url'] === undefined) {
    throw new Error(`--${openAIOnly} needs --openai-base-url`);
  }
  if (values['openai-base-url'] !== undefined) {
    const apiKey = env.OPENAI_API_KEY;
    const timeoutMs = integer(values['openai-timeout-ms']);
    const maxRetries = integer(values['openai-max-retries']);
    try {
      model = openAIChatModel({
        baseURL: values['openai-base-url'],
        model: values['openai-model'] ?? 'gpt-4o-mini',
        ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...(values['openai-no-stream'] ? { stream: false } : {}),
      });
    } catch (error) {
      // Name the flag, not the option: "openAIChatModel: timeoutMs must be …" → "--openai-timeout-ms must be …".
      const flags: Record<string, string> = {
        baseURL: '--openai-base-url',
        model: '--openai-model',
        timeoutMs: '--openai-timeout-ms',
        maxRetries: '--openai-max-retries',
      };
      throw new Error(
        (error as Error).message.replace(
          /^openAIChatModel: (\w+)/,
          (_, field: string) => flags[field] ?? field,
        ),
      );
    }
  }
  if (model) options.model = model;
  if (files.agents !== undefined) options.agents = files.agents;
  return { kind: 'start', options, debug: values.debug === true, ...(keysFile ? { keysFile } : {}) };
}

/**
 * What the model of a parsed command needs that only a start can find out: with `--openai-base-url`, the `openai`
 * package (an optional peer dependency), loaded now rather than at the first run.
 * @throws Error (as a rejection) saying to install `openai`, with the import's own error.
 */
export async function checkModelPackages(options: Pick<StubServerOptions, 'model'>): Promise<void> {
  if (options.model?.info?.kind !== 'openai-compatible') return;
  try {
    await loadOpenAI();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    throw new Error(
      `--openai-base-url needs the openai package, an optional peer dependency of toolwire: npm install openai@6 where toolwire is installed (${messageOf(cause)})`,
      { cause: error },
    );
  }
}

/** `--features a,b` (spaces allowed around the commas), `all` (the default, as the help says) or `none`. */
function parseFeatures(raw: string): Feature[] {
  if (raw.trim() === 'none') return [];
  if (raw.trim() === 'all') return [...FEATURES];
  const names = raw.split(',').map((part) => part.trim());
  // Every unknown one at once, with the feature probably meant, as unknown flags are named.
  const unknown = names.filter(
    (name, index) => featureOf(name) === undefined && names.indexOf(name) === index,
  );
  if (unknown.length > 0) {
    const text = unknownKeysText(unknown, FEATURES, { noun: 'feature' });
    throw new Error(`--features: ${text}${text.includes('; known features: ') ? '; or all, or none' : ''}`);
  }
  return names.map((name) => featureOf(name) as Feature);
}

/**
 * Checks the numbers as `startStubServer` will (minimums, the longest timer), before anything starts, and says
 * what is wrong in terms of the flag: `leaseMs must be …` → `--lease-ms must be …`.
 */
function checkAsFlags(options: Omit<StubServerOptions, 'logger'>): void {
  try {
    resolveStubOptions({ ...options, logger: silentLogger });
  } catch (error) {
    const message = (error as Error).message.replace(/^startStubServer: /, '');
    // Options whose flag is not the option's name in kebab case (a repeatable flag names one value).
    const flags: Record<string, string> = { corsOrigins: 'cors', apiKeys: 'api-key' };
    throw new Error(
      message.replace(/^(\w+)(\[\d+\])?/, (whole: string, field: string) =>
        flags[field] === undefined
          ? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${whole.slice(field.length)}`
          : `--${flags[field]}`,
      ),
    );
  }
}

/**
 * The keys of an `--api-keys-file` (server-stub/admin.ts), for the start and for each SIGHUP.
 * @throws Error naming the flag, the file and the line at fault, never a key.
 */
export function readKeysFile(path: string, adminKey: string | undefined): ApiKeyEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--api-keys-file: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseKeysFile(text, adminKey);
  } catch (error) {
    throw new Error(`--api-keys-file: ${path}: ${(error as Error).message}`);
  }
}

/**
 * The `--script` and `--agents` files, read and checked together: a refusal names every problem of both (a file
 * that cannot be read or is not JSON, then each bad entry, listed by `problemsText`), one file after the other,
 * so that one who fixes them meets no other problem at the next start.
 * @throws Error `--script: <path>: <problems>` and `--agents: <path>: <problems>`, one a line.
 */
function readFiles(
  scriptPath: string | undefined,
  agentsPath: string | undefined,
): { script?: Script; agents?: AgentDefinition[] } {
  const refusals: string[] = [];
  const read = (
    flag: string,
    path: string | undefined,
    problemsOf: (value: unknown) => string[],
    what: string,
  ) => {
    if (path === undefined) return undefined;
    let value: unknown;
    try {
      value = readJson(flag, path);
    } catch (error) {
      refusals.push((error as Error).message);
      return undefined;
    }
    const problems = problemsOf(value);
    if (problems.length > 0) refusals.push(`--${flag}: ${path}: ${problemsText(problems, what)}`);
    return value;
  };
  const script = read('script', scriptPath, scriptProblems, SCRIPT_ENTRIES) as Script | undefined;
  const agents = read('agents', agentsPath, (value) => readAgents(value).problems, 'agents');
  if (refusals.length > 0) throw new Error(refusals.join('\n'));
  return {
    ...(script === undefined ? {} : { script }),
    ...(agents === undefined ? {} : { agents: agents as AgentDefinition[] }),
  };
}

function readJson(flag: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    // A byte order mark (a Windows editor's UTF-8) is no JSON: dropped, as the keys file's is (trimmed).
    return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    throw new Error(`--${flag}: ${path} is not JSON: ${(error as Error).message}`);
  }
}
