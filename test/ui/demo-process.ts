/**
 * The demo (`npm start -- --ui …`, examples/demo/main.ts) run in this process for the UI tests, until its signal
 * aborts: started, and waited for until it prints the agent UI's URL.
 */
import { main } from '../../examples/demo/main';

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours from the demo's lines.
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

export interface RunningDemo {
  /** The agent UI's URL as printed (the key in its fragment). */
  url: string;
  /** Every line the demo printed, without colours. */
  lines: string[];
  /** The demo's exit code, once `signal` aborted and it stopped. */
  exited: Promise<number>;
}

/**
 * Starts the demo with `args` (`--port 0 --db :memory:` are added) and resolves once it printed `agent UI <url>`.
 * @throws Error with everything it printed when it exits before that.
 */
export async function startDemo(args: readonly string[], signal: AbortSignal): Promise<RunningDemo> {
  const lines: string[] = [];
  let ready!: (url: string) => void;
  const printed = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const exited = main(
    [...args, '--port', '0', '--db', ':memory:'],
    (line) => {
      lines.push(plain(line));
      const match = /^agent UI (\S+)$/.exec(plain(line));
      if (match?.[1]) ready(match[1]);
    },
    { signal },
  );
  const url = await Promise.race([
    printed,
    exited.then((code) => {
      throw new Error(`the demo exited with ${code} before printing the URL:\n${lines.join('\n')}`);
    }),
  ]);
  return { url, lines, exited };
}
