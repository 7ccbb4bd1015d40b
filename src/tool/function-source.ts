/**
 * What a function's source says of its parameters (`Function.prototype.toString`), read where a behaviour is
 * decided once when a tool is defined: `parameterList` (the names and destructured keys, for the order of a
 * `needsApproval` function's arguments: ./shapes.ts) and `readsPastFirstArgument` (whether `execute` can read a
 * `ctx`: a call of a tool whose `execute` cannot makes none unless something else asks for it, src/call/pipeline.ts).
 *
 * @module
 */

/**
 * Whether `fn` may read an argument past its first: `false` only when its source plainly shows at most one
 * parameter, none of them a rest parameter, and never names `arguments` or `eval` (the only other ways to reach an
 * argument). A source it does not read plainly may: `true` for native code, a bound function, a class, a
 * sloppy-mode `function`, a string or computed method name, a comment, regular expression or template literal in
 * the parameters, a `\u` escape anywhere, and for a value that is not a function.
 */
export function readsPastFirstArgument(fn: unknown): boolean {
  if (typeof fn !== 'function') return true;
  let source: string;
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    return true;
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source) || /^class\b/.test(source)) return true;
  // A sloppy-mode `function`'s arguments are readable from outside it while it runs (`fn.arguments`, or
  // `caller.arguments` in a function it calls). Reading the property throws for any other function, but for a
  // strict `function` in some engines (Bun's): those may too. Read after the native check: no Proxy trap runs.
  // Strict mode, an arrow, a method, async or a generator (reading throws): its arguments are its own.
  if (!argumentsReadThrows(fn)) return true;
  // A word test over the whole source: a property or a string of that name only costs the call its `ctx`. A `\u`
  // escape can spell either name (`\u0061rguments`).
  if (/\\u|\b(?:arguments|eval)\b/.test(source)) return true;
  // `x => …`, `async x => …`: one bare parameter.
  if (/^(?:async\s+)?[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*\s*=>/u.test(source)) return false;
  // Before the parameters only keywords, a plain name and `*`: no comment, string or computed key holds a `(`.
  const head = /^[\p{ID_Continue}$#\s*]*\(/u.exec(source);
  if (head === null) return true;
  const inner = balanced(source, head[0].length - 1);
  // A comment, regular expression or template literal could hide a `)` or `,` from the scan; each begins with `/`,
  // a backtick, or (an HTML-like comment of a script) `<!--` or `-->`, and the text before that mark is read
  // right, so finding the mark is enough to say `true`.
  if (inner === undefined || /[/`]|<!--|-->/.test(inner)) return true;
  const params = splitTopLevel(inner, ',')
    .map((param) => param.trim())
    .filter((param) => param !== '');
  return params.length > 1 || (params.length === 1 && (params[0] as string).startsWith('...'));
}

/**
 * %ThrowTypeError%, the function that throws whatever it is called on: the getter of a strict function's arguments
 * object's `callee`, and (as the specification has it, and V8) of `Function.prototype.arguments`.
 */
const THROW_TYPE_ERROR = Object.getOwnPropertyDescriptor(
  (function strictArguments() {
    // biome-ignore lint/complexity/noArguments: the arguments object is what is read
    return arguments;
  })(),
  'callee',
)?.get;

/**
 * `true` when reading `fn.arguments` throws. Told from where the property is found when its getter is
 * {@link THROW_TYPE_ERROR} (an arrow's, a method's, a strict function's in V8): a throw and its stack cost more
 * than the rest of the reading of a tool's `execute`. Anything else is read.
 */
function argumentsReadThrows(fn: object): boolean {
  for (let holder: object | null = fn; holder !== null; holder = Object.getPrototypeOf(holder)) {
    const found = Object.getOwnPropertyDescriptor(holder, 'arguments');
    if (found === undefined) continue;
    if (THROW_TYPE_ERROR !== undefined && found.get === THROW_TYPE_ERROR) return true;
    break;
  }
  try {
    void (fn as { arguments?: unknown }).arguments;
    return false;
  } catch {
    return true;
  }
}

/**
 * The parameters of a function's source: each a name, or the keys an object pattern destructures (an array
 * pattern: no keys); `undefined` for native code or a class.
 */
export function parameterList(source: string): Array<string | string[]> | undefined {
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source) || /^class\b/.test(source)) return undefined;
  // `x => …` and `async x => …`: one bare parameter.
  const bare = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(source);
  if (bare !== null && bare[1] !== 'async') return [(bare[1] as string).replace(/^_+(?=[A-Za-z$])/, '')];
  const inner = parameterText(withoutComments(source));
  if (inner === undefined) return undefined;
  return splitTopLevel(inner, ',')
    .map((param) => param.trim())
    .filter((param) => param !== '')
    .map((param) => {
      const pattern = splitTopLevel(param, '=')[0]?.trim() ?? '';
      if (pattern.startsWith('{')) {
        const body = balanced(pattern, 0) ?? '';
        return splitTopLevel(body, ',')
          .map((entry) => entry.trim().replace(/^\.\.\./, ''))
          .filter((entry) => entry !== '')
          .map((entry) => /^[A-Za-z_$][\w$]*/.exec(entry)?.[0] ?? '');
      }
      if (pattern.startsWith('[')) return [];
      // `_ctx`, `...args`: the name without the marks of an unused or rest parameter.
      return pattern.replace(/^\.\.\./, '').replace(/^_+(?=[A-Za-z$])/, '');
    });
}

/**
 * The text between the parentheses of a function's parameters (comments already taken out): past its keywords and
 * its name, which may be a string or a computed key holding a `(` of its own; `undefined` when none is found.
 */
function parameterText(source: string): string | undefined {
  const keyAt = /^(?:(?:async|get|set|static)\s+)*\*?\s*/.exec(source)?.[0].length ?? 0;
  const key = source[keyAt];
  let open: number;
  if (key === '"' || key === "'" || key === '[') {
    const keyEnd =
      key === '[' ? keyAt + (balanced(source, keyAt)?.length ?? Number.NaN) + 1 : skipString(source, keyAt);
    open = /^\s*\(/.test(source.slice(keyEnd + 1)) ? source.indexOf('(', keyEnd + 1) : -1;
  } else open = (/^[\p{ID_Continue}$#\s*]*\(/u.exec(source)?.[0].length ?? 0) - 1;
  return open < 0 ? undefined : balanced(source, open);
}

/** `source` without its comments (strings and template literals kept whole), for reading names out of it. */
function withoutComments(source: string): string {
  let text = '';
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === '"' || char === "'" || char === '`') i = skipString(source, i);
    else if (char === '/' && (source[i + 1] === '/' || source[i + 1] === '*')) {
      const end = source[i + 1] === '/' ? source.indexOf('\n', i) : source.indexOf('*/', i + 2) + 2;
      text += `${source.slice(from, i)} `;
      from = end <= 1 ? source.length : end;
      i = from - 1;
    }
  }
  return text + source.slice(from);
}

const CLOSING: Record<string, string> = { '(': ')', '{': '}', '[': ']' };

/** The text inside the bracket at `start` and its match, strings and comments skipped; `undefined` if unclosed. */
function balanced(text: string, start: number): string | undefined {
  const stack: string[] = [];
  for (let i = start; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' || char === "'" || char === '`') {
      i = skipString(text, i);
      continue;
    }
    if (char === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const end = text[i + 1] === '/' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2) + 1;
      if (end <= 0) return undefined;
      i = end;
      continue;
    }
    if (CLOSING[char] !== undefined) stack.push(CLOSING[char] as string);
    else if (char === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return text.slice(start + 1, i);
    }
  }
  return undefined;
}

/** The index of the quote that ends the string opened at `start`. */
function skipString(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
  return i;
}

/** `text` split at each `separator` outside brackets and strings (`=` not part of `=>`, `==`, `<=`, `>=`, `!=`). */
function splitTopLevel(text: string, separator: ',' | '='): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' || char === "'" || char === '`') i = skipString(text, i);
    else if (char === '(' || char === '{' || char === '[') depth += 1;
    else if (char === ')' || char === '}' || char === ']') depth -= 1;
    else if (depth === 0 && char === separator) {
      if (separator === '=' && (/[=<>!]/.test(text[i - 1] ?? '') || /[=>]/.test(text[i + 1] ?? ''))) continue;
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts;
}
