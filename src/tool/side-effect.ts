/** A tool's side-effect class (Assembly Line's `sideEffect`). */
export type SideEffect = 'none' | 'idempotent' | 'external';
