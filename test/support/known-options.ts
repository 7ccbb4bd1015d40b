import { expect } from 'vitest';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What an unknown-option refusal says: `prefix` (`new Client(options): unknown option "tls"`), then
 * `; known options: ` and a comma-separated list of option names that includes each of `some`. The list itself
 * comes from the option spec, so adding an option changes no test; the "did you mean" cases are asserted whole.
 * Returns an asymmetric matcher, usable wherever a message string is compared with `toEqual`/`toMatchObject`.
 */
export function unknownOptionMessage(prefix: string, ...some: string[]): string {
  const name = '[A-Za-z_$][\\w$]*';
  const includes = some.map((option) => `(?=(?:.*, )?${escapeRegExp(option)}(?:,|$))`).join('');
  const pattern = new RegExp(`^${escapeRegExp(prefix)}; known options: ${includes}${name}(?:, ${name})*$`);
  return expect.stringMatching(pattern) as unknown as string;
}
