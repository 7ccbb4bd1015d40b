/**
 * The one way the page builds DOM: elements with properties, and children that are nodes or strings. Strings
 * always become text nodes, so nothing a tool, a model or a user wrote is ever parsed as HTML. (The page never
 * uses `innerHTML`, `outerHTML`, `insertAdjacentHTML` or `document.write`; a test checks the sources.)
 *
 * @module
 */

/** A child: a node, a string (becomes a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Element options. `text` sets `textContent`; `attrs` are set with `setAttribute`. */
export interface ElementOptions {
  class?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string>;
  dataset?: Record<string, string>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

/** Creates an element. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (options.class !== undefined) element.className = options.class;
  if (options.text !== undefined) element.textContent = options.text;
  if (options.title !== undefined) element.title = options.title;
  for (const [name, value] of Object.entries(options.attrs ?? {})) element.setAttribute(name, value);
  for (const [name, value] of Object.entries(options.dataset ?? {})) element.dataset[name] = value;
  for (const [name, listener] of Object.entries(options.on ?? {})) {
    element.addEventListener(name, listener as EventListener);
  }
  append(element, ...children);
  return element;
}

/** Appends children (strings as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Removes every child. */
export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** JSON for display: strings as they are, anything else indented (never throws). */
export function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `12 ms`, `1.4 s`. */
export function formatDuration(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Local time of day of an ISO time. */
export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString();
}
