// msw's WebSocket interceptor patches the global WebSocket; Node 20 has none, so install `ws` first.
import { WebSocket } from 'ws';

globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
