/**
 * Budgets: two figures of issue 28 that are exact, not timed, so that a change which makes them worse fails
 * `npm test` (test/bench/budgets.test.ts) instead of drifting unnoticed from round to round. The browser first
 * download grew from 58 to 82 KB over five rounds, each change adding a little; the plain call's trip was cut from
 * about 43 files to 27 and must stay cut.
 *
 * Both are deterministic on one machine image (V8's call counts of one call; esbuild and zlib as locked in
 * package-lock.json), so the test compares them exactly, never as a time.
 *
 * To change a budget, change it here in the commit that moves the figure and say why in its body: a capability
 * every call or every page needs (and why it cannot load on first use, src/code-on-demand.ts), or a gain to keep.
 * The test fails too when a figure falls well below its budget, so that a gain is written down and not given back
 * by the next change.
 *
 * @module
 */

/**
 * The trip of one plain call through src/ (`npm run bench:trip`: a zod 4 tool, synchronous `execute`, a client of
 * default options): the source files it enters, the functions it enters and the function calls it makes. Exact.
 * 192 calls until the result frame's call id and output went between quotes without `JSON.stringify`, and the
 * output's JSON bytes were counted in one pass (190); 190 until the outbox kept a call and its result in one object,
 * made where the call ends (188); 188 until the socket asked whether it was welcomed only before it was, and a call
 * took its first slot on arrival without `#begin` (186); 146 functions and 186 calls until a context at hand went
 * straight to the tool (no `settleNow`, outcome object or continuation for it), and a call's run no longer made a
 * scope for the closures of its rare branches (142 and 183); 183 calls until the outbox no longer made a result's
 * output well-formed again when the call's pipeline had and no redaction changed it (182); 185 since a call's
 * signal, the call itself, is read through a getter rather than a field pointing at the call (8 B less a call held
 * in flight): 4 reads of `options.signal`, getters V8 inlines into its optimised code, less the class field
 * initialiser the field took. The same with the service's ids (`call_` and `run_` and a UUID, bench/lib/ids.ts) as
 * with the short `c1` the trip sent before. 143 functions and 184 calls since the outbox holds its results in a queue
 * rather than a map by call id, and is not asked about a new call (`#answered`, `oldest`, `#enqueue` in; `callOf`
 * and the map's `get`, `put` and `add` out). 144 and 185 since the sampled and the whole hash of a call id share
 * one loop (`seededHash`, which V8 inlines: +15 instructions a call) instead of two copies of it.
 */
export const PLAIN_CALL_TRIP = { files: 27, functions: 144, calls: 185 } as const;

/**
 * The browser first download, zod left out (bench/lib/bundle-size.ts, the target figure), in bytes after
 * gzip level 9: at most this, and at least this less {@link FIRST_DOWNLOAD_SLACK_BYTES}. Issue 28's target is
 * 52 KB (53,248 B); the peers' pages weigh 50–52 KB. Measured 82,162 B on 2026-12-06; 82,434 B on 2026-12-07
 * (calls waiting for code handed back at `close()` +129 B, calls and results keeping their optimised code +80 B,
 * fields set in the constructors of a call's classes +56 B); 82,732 B later on 2026-12-07 (+272 B net: the run
 * code's output check and event hiding moved out −255 B; every page's `connect()`, `close()` and option checks
 * gained about 527 B: calls waiting for the validator's code handed back, `connect()` and `run()` while the first
 * `connect()` waits for code, `url` as a `URL` object in any case, options that are not a plain object refused by
 * name, a key in a mistyped `url` or a quoted fragment kept out of errors); 83,096 B on the stop of 2026-12-07's
 * afternoon (+348 B: the one line a client with no logger prints when `connect()`'s first attempt fails +124 B; the
 * heartbeat's frames on the decoder's fast path, and the regular frames decoded at load so that a lone `ack` or a
 * `pong` does not throw the optimised decoder away +167 B; the rest in the redactor's twice-encoded forms); 83,207 B
 * at the end of that stop (+111 B: the redactor's form-encoded spaces, and an escape's backslash percent-encoded);
 * 83,610 B on 2026-12-07 from 83,412 B (+198 B: the redactor's lowercased and uppercased secrets, UTF-16 bytes in
 * hex and base64, base64 in base64, percent-encoding up to 8 times, and binary data read as UTF-16 too); 83,779 B
 * (+169 B, a gain kept: a result frame's call id and output put between quotes without `JSON.stringify` when they
 * need no escape, its words made flat at load, and the result kinds' sizes counted once: ~2,000 fewer instructions
 * in every call's result); 84,012 B (+233 B, a gain kept: every page that defines a tool runs `tool()`, which
 * now spares a zod 4 tool without metadata zod's second translation, compiles a trusted zod 4 tool's announced
 * schema at its first refusal, and tells whether `execute` takes a `ctx` without throwing: a zod 4 tool's
 * definition 3.2 M → 2.2 M instructions, bench/define.ts); 84,691 B (+679 B: the redactor's search of long texts,
 * whose cost no longer grows with each secret: samples of the text for the secrets as written and their byte
 * encodings, and the escapes and `%` read for the secrets they may begin, each tried with its own pattern, instead
 * of one pattern of all of them tried at every place; 10 KB of JSON with 16 secrets 54 ms → 0.3 ms, bench/redact.ts);
 * 84,664 B (−27 B: the outbox keeps a call and its result in one object, and the call runner's class for the call's
 * kept frame is gone); 84,720 B (+56 B: a secret beginning with a backslash found as written after `%5C` or 16
 * backslashes, and each sample looked up for the needles that hold it, each place searched once: 1 MB repeating a
 * piece of the API key with 16 learned keys 2.3 s → 17 ms); 84,783 B from 84,688 B (+95 B, a gain kept: a `tool_call`
 * the decoder's fast path takes whole has its fields counted rather than walked for depth, about 200 fewer
 * instructions a frame with one ack, more with more; and a call's arrival takes its place among the calls held
 * without looking for it again); 85,057 B (+274 B, gains kept: a plain call's run makes no scope, closure or outcome
 * object it does not use, each rare branch of a phase that made a closure a function of its own and a context at hand
 * going straight to the tool, ~600 fewer instructions a call at 64 in flight; a result of 0 ms ends with a piece
 * written at load; the last call frames of each shape kept, so that V8 keeps the decoder's code through an idle
 * client's collections); 85,156 B (+99 B, a gain kept: the calls held (src/client/call-map.ts) keep each place's
 * key, so that a call that ends is taken from the place it was given without a lookup, and the outbox does not make
 * an output well-formed again when the call's pipeline had: 9 lookups of a call id a call at 64 in flight down to 8);
 * 85,188 B (+32 B: a finished call's id hashed two UTF-16 units at a time, ~6% less a hash); 85,208 B (+20 B: a
 * call of the same run as the last keeps the last call's run id, not its own copy: 56 B less a call held); 85,253 B
 * (+46 B: the call frames kept for V8 only once accepted, and let go when a client closes); 85,303 B (+50 B: a call
 * that waits shares one object for arguments `{}`, its signal is a getter and options made over it carry it, and the
 * calls held keep no array of their ids: 72 B less a call held in flight); 85,313 B (+10 B: a tracer is handed
 * arguments `{}` of a call that waited as an object of its own, not the frozen one the waiting calls share);
 * 85,435 B (+122 B, a fix: a call of a tool whose schema hands back its input keeps its own of the arguments before
 * `execute` runs, so its trace and a re-delivery's comparison see them as sent, whatever the tool does to its input;
 * decided per tool in `tool()`, a zod tool's call pays nothing); 85,808 B (+373 B: the outbox matches an ack against
 * its oldest result and finds a result by id through an index made at the first lookup out of order, ~1,700
 * instructions less a call at 64 in flight); 85,944 B (+136 B, a gain kept: the frames' schemas built at first use,
 * each service frame decoded with its type's schema alone, so that a client builds its `welcome`'s and no other: a
 * Node worker's start ~11 M instructions and ~200 KiB of heap less, a page's too); 85,985 B (+41 B, a fix:
 * `removeTool()` hands back the calls of the tool still waiting for a slot, answered busy, instead of ending them
 * `unknown_tool`); 86,002 B (+17 B, a fix: `new Client` refuses a `url` with a `#` fragment); 86,050 B (+48 B, a fix:
 * a result dropped as it is written, its error result refused too, still tells its `tool_result` event that error
 * result's text); 86,067 B (+17 B: "built at first use" is one module, src/once.ts, that the frames' schemas, the
 * widget schema and the run events' shapes share, where each wrote its own); 86,290 B (+223 B: finished call ids are
 * hashed by their last 16 units, whole once ids sharing those make a long run: ~590 instructions less a call); 86,328 B
 * (+38 B, a fix: an error's other own fields, a runtime's `hostname` say, are redacted too); 86,444 B (+116 B, fixes:
 * an error's symbol-keyed fields, its `errors` field, an error held in a field, and a hash kept from before finished
 * ids were hashed whole); 86,512 B (+68 B, a fix: an error past the 17 of a chain copied is read for a secret);
 * 86,533 B (+21 B, a fix: an AggregateError's `errors` set to no array is read for a secret); 86,521 B (−12 B: the
 * sampled and the whole id hash share one loop); 86,540 B (+19 B: fixes, `close()` drains until a tool that ignored
 * its signal returns +8 B, an error held in an error's field stays an error once redacted +39 B, an error's
 * non-enumerable and inherited fields redacted +20 B; and `FinishedIds.longestRun()`, for tests only, gone −48 B);
 * 86,660 B (+120 B, fixes: a value that shares its parts redacted once a part +58 B, a refused approval request ends
 * its call with no `cancelled` result +13 B, a call approved locally while the socket is down waits for the resume
 * +53 B, a question withdrawn while the socket is down withdrawn at the resume −4 B); 86,683 B (+23 B, a fix: a
 * browser's error for a missing `url` or `apiKey` names no environment variable); 86,944 B (+261 B, fixes: an error
 * shared by errors' fields redacted once +25 B, a boxed string or number read for a secret +81 B, a keyed call's permit
 * kept while its cancelled tool runs +9 B, `process.env` that cannot be read +26 B, a begun call going on past an
 * approved one while the socket is down +41 B, `Headers`/`URLSearchParams` and `toJSON`-hidden fields in an error's
 * fields redacted +75 B); 86,961 B (+17 B: an approved call goes back in line by a method of its own,
 * `Slots.whenApprovedInSlot`, not by a flag after an absent lane).
 * Measured in a checkout with its own node_modules: a worktree whose node_modules links to another checkout measures
 * 8 B more (the paths in the bundle are longer).
 */
export const FIRST_DOWNLOAD_GZIP_BYTES = 86_961;

/** How far below {@link FIRST_DOWNLOAD_GZIP_BYTES} the first download may fall before the budget must be lowered. */
export const FIRST_DOWNLOAD_SLACK_BYTES = 1_024;
