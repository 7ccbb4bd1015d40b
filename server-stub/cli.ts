#!/usr/bin/env node
/**
 * `toolwire-stub`: starts the service stand-in, prints its `ws://` URL on stdout (and the agent UI's address on
 * stderr), and closes cleanly on SIGINT or SIGTERM. Run `toolwire-stub --help` for the options.
 *
 * @module
 */
import { OptionsError } from '../src/errors';
import { checkModelPackages, parseCliArgs, readKeysFile, USAGE } from './cli-args';
import { type ApiKeyEntry, keyOf } from './fleet';
import { consoleLogger } from './logger';
import type { ModelInfo } from './model';
import { startStubServer } from './server';

async function main(): Promise<void> {
  let command: ReturnType<typeof parseCliArgs>;
  try {
    command = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`toolwire-stub: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  try {
    await checkModelPackages(command.options);
  } catch (error) {
    process.stderr.write(`toolwire-stub: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  let stub: Awaited<ReturnType<typeof startStubServer>>;
  try {
    stub = await startStubServer({ ...command.options, logger: consoleLogger({ debug: command.debug }) });
  } catch (error) {
    // Options the stub refuses (an --agents file of bad definitions, …) are a usage error, as a bad flag is.
    if (!(error instanceof OptionsError)) throw error;
    process.stderr.write(`toolwire-stub: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { keysFile } = command;
  // The file's `<key> <tenant>` lines: set before the URL is printed, so before any client can connect.
  if (keysFile !== undefined) stub.setApiKeys(keysFile.keys);
  if (keysFile !== undefined) {
    // SIGHUP reloads the keys, as daemons reload their configuration; a bad file changes nothing.
    process.on('SIGHUP', () => {
      try {
        const entries = readKeysFile(keysFile.path, command.options.adminKey);
        const closed = stub.setApiKeys(entries);
        // Distinct keys: a key listed twice for its tenant is one key.
        const keys = new Set(entries.map(keyOf));
        process.stderr.write(
          `toolwire-stub: SIGHUP: ${keys.size} API key${keys.size === 1 ? '' : 's'} from ${keysFile.path}; ${closed} socket${closed === 1 ? '' : 's'} on a key no longer listed closed (4001)\n`,
        );
      } catch (error) {
        process.stderr.write(
          `toolwire-stub: SIGHUP: keeping the current API keys: ${(error as Error).message}\n`,
        );
      }
    });
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`toolwire-stub: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`toolwire-stub: ${signal}, closing\n`);
    stub.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`toolwire-stub: close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Printed last: whoever reads the address may signal the process at once, and finds the handlers in place.
  process.stdout.write(`${stub.url}\n`);
  process.stderr.write(`toolwire-stub: ${describeModel(stub.model.info)}\n`);
  process.stderr.write(`toolwire-stub: ${uiLine(stub.httpUrl, command.options.apiKeys)}\n`);
}

/**
 * Where the agent UI is: with `--api-key`, its address carries the (first) key after `#key=`, so that the page
 * opens signed in (the fragment never reaches a server); without one, any key is accepted.
 */
function uiLine(httpUrl: string, apiKeys: readonly ApiKeyEntry[] | undefined): string {
  const first = apiKeys?.[0];
  const key = first === undefined ? undefined : keyOf(first);
  return key === undefined
    ? `agent UI at ${httpUrl}/ (any API key is accepted)`
    : `agent UI at ${httpUrl}/#key=${encodeURIComponent(key)}`;
}

/** The line that says who answers: a scripted model is never mistaken for a language model. */
function describeModel(info: ModelInfo | undefined): string {
  if (info === undefined) return 'model: a custom model';
  if (info.kind !== 'scripted') return `model: ${info.name} (${info.kind})`;
  return info.name.includes('no script')
    ? 'model: scripted, with no script: every run fails until you give it one (--script turns.json) or a real model (--openai-base-url URL)'
    : `model: ${info.name}: a script, not a language model; it plays the same turns whatever is asked`;
}

main().catch((error: unknown) => {
  process.stderr.write(`toolwire-stub: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
