/**
 * A result's content parts (docs/protocol/call-context.md), drawn under its output: images (PNG, JPEG, GIF or WebP from
 * base64 `data:` URLs only), files by name, type and size, JSON indented, text as text. Nothing is parsed as
 * HTML, and an image whose type or data is not what it should be is named, not drawn.
 *
 * @module
 */
import { el, pretty } from './dom';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bytesOf(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length / 4) * 3) - padding;
}

function part(value: unknown): HTMLElement {
  const item = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const data = typeof item.data === 'string' ? item.data : '';
  const mediaType = typeof item.mediaType === 'string' ? item.mediaType : '';
  switch (item.type) {
    case 'text':
      return el('pre', { class: 'content-text', text: String(item.text ?? '') });
    case 'json':
      return el('pre', { class: 'content-json', text: pretty(item.value) });
    case 'image':
      if (IMAGE_TYPES.has(mediaType) && BASE64.test(data)) {
        return el(
          'figure',
          { class: 'content-image' },
          el('img', {
            attrs: { src: `data:${mediaType};base64,${data}`, alt: `image (${mediaType})`, loading: 'lazy' },
          }),
        );
      }
      return el('p', { class: 'content-file', text: `image (${mediaType || 'unknown type'}) not shown` });
    case 'file': {
      const name = typeof item.filename === 'string' && item.filename !== '' ? item.filename : 'file';
      return el('p', {
        class: 'content-file',
        text: `${name} (${mediaType}, ${bytesOf(data).toLocaleString('en-US')} bytes)`,
      });
    }
    default:
      return el('pre', { class: 'content-json', text: pretty(value) });
  }
}

/** The parts of a `tool_result`, under a label. */
export function renderContent(parts: unknown[]): HTMLElement {
  return el(
    'div',
    { class: 'call-content' },
    el('div', { class: 'label', text: 'content parts (what a model that takes images and files gets)' }),
    ...parts.map(part),
  );
}
