/**
 * The unit tier's clock: in each test, `performance.now()` stands still at the time the test began, unless the
 * test moves it (`vi.useFakeTimers({ toFake: [..., 'performance'] })`, then `vi.advanceTimersByTime`) or asks for
 * the real one ({@link realClock}). test/setup.ts puts it in place before each test of the unit project and takes
 * it away after; `vi.useRealTimers()` puts back the still clock, not the real one, as it was when timers were faked.
 *
 * Why: the client times each call on this clock, and a call that took `SLOW_CALL_MS` (50 ms, src/client/slots.ts) or
 * more makes the calls after it start in a later task. On the real clock, a call that is instant in intent but that
 * a loaded machine (CI, a full run on 2 cores) slowed to 50 ms moves the calls after it, and the frames they send,
 * past the task a test reads: the test depends on the machine's speed. On this clock no call is slow unless a test
 * says so, and no other threshold on `performance.now()` (deadlines, lease grace, the connection's stable time) is
 * crossed by the machine's load alone.
 */

const real = globalThis.performance;
/** The still clocks handed out (one a test), to tell them from the real clock and from a faked one. */
const stills = new WeakSet<Performance>();

/** `performance` as it is, but for `now()`, which returns `at`. */
function stillAt(at: number): Performance {
  const still = new Proxy(real, {
    get(target, key) {
      if (key === 'now') return () => at;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  stills.add(still);
  return still;
}

/**
 * Stops the clock for the test about to run (or running), unless `performance` is faked already (by a file's
 * `beforeAll`). test/setup.ts calls it before each test of the unit tier; a test of another tier whose checks
 * depend on the clock (which progress is coalesced) calls it itself. The real clock is back when the test ends.
 */
export function stopClock(): void {
  if (globalThis.performance === real) globalThis.performance = stillAt(real.now());
}

/**
 * Gives the current test the real clock: for a test of the unit tier whose code must see time pass on its own
 * (real timers waited out against `performance.now()`). Call it in the test, or `beforeEach(realClock)` for a file.
 */
export function realClock(): void {
  if (stills.has(globalThis.performance)) globalThis.performance = real;
}
