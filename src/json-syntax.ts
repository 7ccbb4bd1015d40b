/**
 * Why a text is not JSON, in words that are the same on every runtime: the JSON grammar (RFC 8259) read over the
 * text, never the engine's message (which differs by runtime and quotes the text, secrets included).
 *
 * @module
 */

/**
 * Where a JSON text stops being JSON: the index (in UTF-16 units) of the first character no JSON text can have
 * there, `text.length` when the text ends before its value does, or `-1` when it is JSON. Read by the grammar
 * (RFC 8259) itself, without recursion (a text nested a million levels deep is read like any other), so the
 * answer is the same on every runtime: the engines' messages differ (V8 gives a position for some faults and
 * none for others, JavaScriptCore never gives one).
 */
function jsonFaultAt(text: string): number {
  const length = text.length;
  let at = 0;
  const blanks = () => {
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      at += 1;
    }
  };
  const digits = (): boolean => {
    const start = at;
    while (at < length && text.charCodeAt(at) >= 0x30 && text.charCodeAt(at) <= 0x39) at += 1;
    return at > start;
  };
  // Reads a string from its opening quote; false when it is not one (`at` on the fault).
  const string = (): boolean => {
    at += 1;
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at += 1;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        at += 1;
        if (at >= length) return false;
        const escaped = text[at] as string;
        if (escaped === 'u') {
          for (let hex = 0; hex < 4; hex += 1) {
            at += 1;
            if (at >= length || !/[0-9a-fA-F]/.test(text[at] as string)) return false;
          }
        } else if (!'"\\/bfnrt'.includes(escaped)) return false;
      }
      at += 1;
    }
    return false;
  };
  // Reads a number, a literal or a string; false when it is not one (`at` on the fault).
  const scalar = (): boolean => {
    const char = text[at];
    if (char === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (char !== literal[0]) continue;
      for (const expected of literal) {
        if (text[at] !== expected) return false;
        at += 1;
      }
      return true;
    }
    if (char === '-') at += 1;
    if (text[at] === '0') at += 1;
    else if (!digits()) return false;
    if (text[at] === '.') {
      at += 1;
      if (!digits()) return false;
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at += 1;
      if (text[at] === '+' || text[at] === '-') at += 1;
      if (!digits()) return false;
    }
    return true;
  };
  // The containers open around `at`: `{` or `[`.
  const open: string[] = [];
  for (;;) {
    // A value is due.
    blanks();
    const char = text[at];
    if (char === '{' || char === '[') {
      open.push(char);
      at += 1;
      blanks();
      if (char === '{' && text[at] !== '}') {
        if (text[at] !== '"' || !string()) return at;
        blanks();
        if (text[at] !== ':') return at;
        at += 1;
        continue;
      }
      if (char === '[' && text[at] !== ']') continue;
      at += 1;
      open.pop();
    } else if (at >= length || !scalar()) return at;
    // A value ended: close what it ends, then a separator or the end of the text.
    for (;;) {
      blanks();
      const container = open.at(-1);
      if (container === undefined) return at < length ? at : -1;
      const next = text[at];
      if (next === (container === '{' ? '}' : ']')) {
        at += 1;
        open.pop();
        continue;
      }
      if (next !== ',') return at;
      at += 1;
      if (container === '{') {
        blanks();
        if (text[at] !== '"' || !string()) return at;
        blanks();
        if (text[at] !== ':') return at;
        at += 1;
      }
      break;
    }
  }
}

/**
 * Why `JSON.parse` refused `text`, in fixed words: `unexpected end of input` when the text ends before its JSON
 * does (a model's output cut short), else `invalid syntax at position <n>`, the index of the first character
 * that cannot be there. Read from the text, never from the parser's message: that one quotes the text around the
 * fault (V8: `Unexpected token 's', "sk-live-01"... is not valid JSON`; JavaScriptCore names the token), so a cut
 * of a secret that no redaction rule recognises would reach logs, `error` frames and what the model reads; and
 * it differs by runtime, while the same text must read the same on Node, Bun, Deno and in browsers.
 * @param offset - added to the position: where `text` starts in the text the model sent.
 * @example
 * ```ts
 * jsonSyntaxError('{"a":1'); // 'unexpected end of input'
 * jsonSyntaxError('{"a":1}x'); // 'invalid syntax at position 7'
 * ```
 */
export function jsonSyntaxError(text: string, offset = 0): string {
  const at = jsonFaultAt(text);
  if (at >= text.length) return 'unexpected end of input';
  // -1: JSON by the grammar, refused for another reason (an engine's own limit).
  return at < 0 ? 'invalid syntax' : `invalid syntax at position ${at + offset}`;
}
