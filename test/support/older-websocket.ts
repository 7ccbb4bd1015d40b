/** A `ws` WebSocket whose `hello` does not offer some features: a client from before them. */
import { WebSocket as NodeWebSocket } from 'ws';

/** A `WebSocket` class for `new Client({ WebSocket })` whose `hello.features` leave out `without`. */
export function olderWebSocket(...without: string[]): typeof NodeWebSocket {
  return class OlderWebSocket extends NodeWebSocket {
    override send(data: unknown, ...rest: unknown[]): void {
      let out = data;
      if (typeof data === 'string' && data.includes('"hello"')) {
        const frame = JSON.parse(data) as { type: string; features?: string[] };
        if (frame.type === 'hello')
          out = JSON.stringify({
            ...frame,
            features: frame.features?.filter((name) => !without.includes(name)),
          });
      }
      (super.send as (...args: unknown[]) => void)(out, ...rest);
    }
  };
}
