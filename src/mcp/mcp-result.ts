/**
 * What the model reads for an MCP `tools/call` result: the text of its content, in order, with a short note in
 * place of every part that is not text. These strings are part of the contract (tests pin them).
 *
 * | MCP content part                         | the model reads                                      |
 * | ---------------------------------------- | ---------------------------------------------------- |
 * | `text`                                   | its text, unchanged                                  |
 * | `resource` holding `text`                | that text, unchanged                                 |
 * | `image` / `audio`                        | `[image omitted: image/png, 1234 bytes]`             |
 * | `resource` holding a `blob`              | `[resource omitted: file:///a.pdf, application/pdf, 1234 bytes]` |
 * | `resource_link`                          | `[resource link: file:///a.pdf (a.pdf)]`             |
 * | any other type                           | `[<type> content omitted]`                           |
 *
 * Parts are joined with a newline. A result with no content but `structuredContent` reads as that object's
 * compact JSON; a result with neither reads as `''`.
 *
 * @module
 */

type Part = Record<string, unknown>;

const isRecord = (value: unknown): value is Part =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Bytes held by base64 text (its padding and any whitespace not counted). */
export function base64Bytes(data: string): number {
  const digits = data.replace(/[\s=]/g, '').length;
  return Math.floor((digits * 3) / 4);
}

function omitted(kind: string, details: Array<string | undefined>): string {
  const shown = details.filter((detail) => detail !== undefined && detail !== '');
  return shown.length === 0 ? `[${kind} omitted]` : `[${kind} omitted: ${shown.join(', ')}]`;
}

function bytes(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined;
  const count = base64Bytes(data);
  return `${count} ${count === 1 ? 'byte' : 'bytes'}`;
}

/** The text the model reads for one content part (see the table in this module's comment). */
export function contentPartText(part: unknown): string {
  if (!isRecord(part)) return '[content omitted]';
  switch (part.type) {
    case 'text':
      return text(part.text) ?? '';
    case 'image':
    case 'audio':
      return omitted(part.type, [text(part.mimeType), bytes(part.data)]);
    case 'resource_link':
      return `[resource link: ${text(part.uri) ?? '(no uri)'}${text(part.name) ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const resource = isRecord(part.resource) ? part.resource : {};
      const inline = text(resource.text);
      if (inline !== undefined) return inline;
      return omitted('resource', [text(resource.uri), text(resource.mimeType), bytes(resource.blob)]);
    }
    default:
      return `[${typeof part.type === 'string' ? part.type : 'unknown'} content omitted]`;
  }
}

/**
 * The text of an MCP `tools/call` result (a `CallToolResult`, or the `{ toolResult }` of protocol 2024-10-07).
 * Never throws, whatever the server sent.
 */
export function mcpResultText(result: unknown): string {
  if (!isRecord(result)) return '';
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length > 0) return content.map(contentPartText).join('\n');
  if (isRecord(result.structuredContent)) return JSON.stringify(result.structuredContent);
  if ('toolResult' in result) {
    const legacy = result.toolResult;
    return typeof legacy === 'string' ? legacy : (JSON.stringify(legacy) ?? '');
  }
  return '';
}

/** What an `isError` result with no text makes the tool throw (the model reads `Error running <name>: …`). */
export const EMPTY_MCP_ERROR = 'the MCP server reported an error without a message';
