import { describe, expect, it } from 'vitest';
import { compilerShare } from '../../bench/lib/instructions';

// A callgrind dump as `--tool=callgrind` writes it (one event, positions by line), cut down to what the parser reads.
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir
summary: 1400

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) v8::internal::compiler::GraphReducer::ReduceTop()
0 300
+2 100
cfn=(2) v8::internal::Heap::Allocate()
calls=3 0
0 9999

fn=(2)
0 200

fn=(3) Builtins_LoadIC
0 400
cfn=(1)
calls=1 0
0 5555
fn=(1)
0 400
totals: 1400
`;

// With `--dump-instr=yes` each cost line begins with the instruction's address (absolute, relative or `*`).
const BY_INSTRUCTION = DUMP.replace('positions: line', 'positions: instr line').replace(
  /^([0-9+]\S*) (\S+)$/gm,
  (_line, position: string, cost: string) => `+${position.length} ${position} ${cost}`,
);

describe('callgrind dump', () => {
  it("adds each function's own cost, the compilers' apart, reading names given once and calls' costs as the callee's", () => {
    expect(compilerShare(DUMP)).toEqual({ total: 1400, compiler: 800 });
  });

  it('reads the cost after the positions when lines also carry instruction addresses', () => {
    expect(BY_INSTRUCTION).toContain('+1 0 300');
    expect(compilerShare(BY_INSTRUCTION)).toEqual({ total: 1400, compiler: 800 });
  });
});
