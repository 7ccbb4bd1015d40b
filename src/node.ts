/**
 * The Node entry of `toolwire` (the `node` export condition; Bun and Deno resolve it too): the core
 * (./index.ts) with every optional part registered (zod 3 and valibot parameters, plain JSON Schema parameters
 * and the JSON Schema validator, `strict: true`, runs, decisions, the questions put to the service, and the
 * optional call code of ./call/parts.ts and tracing, which browsers load on need), and `ws` as the WebSocket of
 * clients made in Node, so that a Node user imports nothing else.
 *
 * The registrations are written here, as in ./zod3.ts, ./valibot.ts, ./json-schema.ts and ./strict.ts, rather
 * than imported from those entries: an entry that another imports is built into a shared chunk, which the package's
 * `sideEffects` does not list, so a bundler would drop it.
 *
 * @packageDocumentation
 */

import { registerAllCallParts } from './call/all-parts';
import { registerSocketQuestions } from './client/call-updates';
import { registerDecisions, registerRuns, registerTracing } from './client/client';
import { Decisions } from './client/decisions';
import { Runs } from './client/runs';
import * as socketQuestions from './client/socket-questions';
import * as tracing from './client/tracing';
import { jsonSchemaAdapter } from './tool/schema/json-schema';
import { registerPart } from './tool/schema/optional-parts';
import { valibotAdapter } from './tool/schema/valibot';
import * as validation from './tool/schema/validator';
import { zod3Adapter, zod3InputJsonSchema } from './tool/schema/zod3';
import { NotStrict, strictSchema } from './tool/strict';
import { registerNodeWebSocket } from './wire/transport';
import { loadWs } from './wire/ws';

registerPart('zod3', { adapter: zod3Adapter, inputJsonSchema: zod3InputJsonSchema });
registerPart('valibot', { adapter: valibotAdapter });
registerPart('jsonSchema', { adapter: jsonSchemaAdapter, validation });
registerPart('strict', { strictSchema, NotStrict });
// The optional call code, which a browser page loads when its tools or calls first need it (src/call/parts.ts).
registerAllCallParts();
// Runs, which a browser page loads on its first `client.run()`, are here from the start.
registerRuns(Runs);
// So is the code of `client.decide()`, which a browser page loads on its first decision.
registerDecisions(Decisions);
// And the questions a call puts to the service, which a browser page loads on its first.
registerSocketQuestions(socketQuestions);
// So is the code of a client's `tracing`.
registerTracing(tracing);
// In Node, `ws` whether or not the runtime has a global WebSocket (Bun and Deno keep theirs: src/wire/transport.ts).
registerNodeWebSocket(loadWs);

export * from './index';
