/**
 * The Node entry of `toolwire` (the `node` export condition; Bun and Deno resolve it too): the core
 * (./index.ts) with every optional part registered (zod 3 and valibot parameters, plain JSON Schema parameters
 * and the JSON Schema validator, `strict: true`, runs, approvals, decisions, the questions put to the service, and the
 * optional call code of ./call/parts.ts and tracing, which browsers load on need), and `ws` as the WebSocket of
 * clients made in Node, so that a Node user imports nothing else.
 *
 * The registrations are written here, as in ./zod3.ts, ./valibot.ts, ./json-schema.ts and ./strict.ts, rather
 * than imported from those entries: an entry that another imports is built into a shared chunk, which the package's
 * `sideEffects` does not list, so a bundler would drop it.
 *
 * @packageDocumentation
 */

import { createRequire } from 'node:module';
import { registerAllCallParts } from './call/all-parts';
import * as approvals from './client/approvals';
import { registerSocketQuestions } from './client/call-updates';
import { registerApprovals } from './client/calls';
import { registerDecisions, registerRuns, registerTracing } from './client/client';
import { Decisions } from './client/decisions';
import { Runs } from './client/runs';
import * as socketQuestions from './client/socket-questions';
import * as tracing from './client/tracing';
import { ToolwireError } from './errors';
import { jsonSchemaAdapter } from './tool/schema/json-schema';
import { registeredPart, registerPart } from './tool/schema/optional-parts';
import { valibotAdapter } from './tool/schema/valibot';
import * as validation from './tool/schema/validator';
import { type Zod3Converter, zod3Part } from './tool/schema/zod3';
import { NotStrict, strictSchema } from './tool/strict';
import { registerNodeWebSocket, registerWsWriter } from './wire/transport';
import { loadWs, wsWriter } from './wire/ws';

// zod 3's converter (and the copy of zod 3 it imports) is loaded by the first zod 3 schema, not at start-up; unless
// `toolwire/zod3` was imported first, which brought it with the program (a bundled program needs that).
if (registeredPart('zod3') === undefined) registerPart('zod3', zod3Part(requireZod3Converter));
registerPart('valibot', { adapter: valibotAdapter });
registerPart('jsonSchema', { adapter: jsonSchemaAdapter, validation });
registerPart('strict', { strictSchema, NotStrict });
// The optional call code, which a browser page loads when its tools or calls first need it (src/call/parts.ts).
registerAllCallParts();
// Runs, which a browser page loads on its first `client.run()`, are here from the start.
registerRuns(Runs);
// So is who decides a call's approval, which a browser page loads when its tools or policies may ask for one.
registerApprovals(approvals);
// So is the code of `client.decide()`, which a browser page loads on its first decision.
registerDecisions(Decisions);
// And the questions a call puts to the service, which a browser page loads on its first.
registerSocketQuestions(socketQuestions);
// So is the code of a client's `tracing`.
registerTracing(tracing);
// In Node, `ws` whether or not the runtime has a global WebSocket (Bun and Deno keep theirs: src/wire/transport.ts).
registerNodeWebSocket(loadWs);
// And frames written on `ws` sockets by `ws`'s own sender (src/wire/ws.ts `wsWriter`).
registerWsWriter(wsWriter);

export * from './index';

/**
 * `zod-to-json-schema` through Node's `require`, resolved from this file: a process that defines no zod 3 tool
 * never evaluates it, nor the copy of zod 3 it imports (`zod/v3`), which cost every Node process ~30 ms of CPU at
 * start-up (Node 20; half of that on Node 24). What it reads of zod is the names of zod 3's types, so the
 * CommonJS copy of `zod/v3` it brings serves the user's zod 3 schemas whichever copy made them.
 *
 * @throws ToolwireError `load_failed`, naming `toolwire/zod3` (whose import bundles the converter with the program),
 *   when `require` cannot find it: a Node program bundled into one file without its `node_modules`. ES modules
 *   run in import order, so the import serves only when it runs before the tool is defined: at the top of the
 *   module that defines the tool (or first in the entry). `tool()` refuses the tool with it (`unsupported_schema`),
 *   and the next zod 3 tool tries the load again.
 */
function requireZod3Converter(): Zod3Converter {
  // `import.meta.url` is `undefined` in the CommonJS build (tsup.config.ts), which has `__filename`.
  const from = import.meta.url ?? __filename;
  try {
    return createRequire(from)('zod-to-json-schema') as Zod3Converter;
  } catch (error) {
    // Node's message goes on with its require stack: its first line says what was missing.
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new ToolwireError(
      'load_failed',
      `toolwire could not load its zod 3 converter, zod-to-json-schema (a bundled program imports \`toolwire/zod3\` at the top of each module that defines zod 3 tools): ${reason}`,
      { cause: error },
    );
  }
}
