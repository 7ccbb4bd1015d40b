import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index';
import * as testing from '../src/testing';

/**
 * The root's public face (src/index.ts, what `toolwire` gives every runtime): names a user writes, at most 80 of
 * them (issue 27). A name added or removed here is a decision, made in this list: what only tests use belongs to
 * `toolwire/testing`, a tracer's shapes to `toolwire/otel`, an adapter's to its own subpath.
 */
const ROOT_NAMES = [
  // values
  'AbortError',
  'Agent',
  'ApprovalError',
  'CLOSE_CODES',
  'Client',
  'ConnectionError',
  'OptionsError',
  'ProtocolError',
  'QuestionError',
  'RunError',
  'STEP_LIMITS',
  'TimeoutError',
  'ToolDefinitionError',
  'ToolRegistry',
  'ToolwireError',
  'approvalRequired',
  'content',
  'inputSchemaOf',
  'invokeTool',
  'tool',
  'toolsOf',
  // types
  'AgentDefinition',
  'AgentOptions',
  'AnyTool',
  'AppContext',
  'ApprovalAnswer',
  'ApprovalDecision',
  'ApprovalPolicy',
  'ApprovalRequest',
  'AsToolOptions',
  'CallInfo',
  'CallPolicy',
  'ClientEvents',
  'ClientOptions',
  'ClientState',
  'CloseOptions',
  'ConnectOptions',
  'ContentInput',
  'ContentPart',
  'DefaultContext',
  'InvokeOptions',
  'JsonSchemaObject',
  'Logger',
  'PolicyCall',
  'PolicyDecision',
  'PreliminaryResult',
  'ProgressUpdate',
  'QuestionReply',
  'QuestionRequest',
  'ReconnectOptions',
  'RedactRule',
  'RetryOptions',
  'RunEvent',
  'RunEventOf',
  'RunOptions',
  'RunResult',
  'RunToolCall',
  'SideEffect',
  'Tool',
  'ToolCallResult',
  'ToolCallStatus',
  'ToolChoice',
  'ToolContent',
  'ToolContext',
  'ToolDefinition',
  'ToolEvent',
  'ToolInput',
  'ToolObject',
  'ToolOptions',
  'ToolOutput',
  'ToolParameters',
  'ToolResultPart',
  'ToolSet',
  'ToolTracing',
  'ToolwireErrorOptions',
  'Widget',
];

/** Every name src/index.ts exports, read from its export declarations (it re-exports only, by name). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  return source.statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement)) return [];
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause))
      throw new Error('src/index.ts exports by name only');
    return clause.elements.map((element) => element.name.text);
  });
}

describe('the root export list', () => {
  const names = exportedNames('src/index.ts');

  it('is the curated list, at most 80 names, no name twice', () => {
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...ROOT_NAMES].sort());
    expect(names.length).toBe(76);
  });

  it('exports at runtime exactly the values of the list', () => {
    const values = ROOT_NAMES.slice(0, ROOT_NAMES.indexOf('AgentDefinition'));
    expect(Object.keys(root).sort()).toEqual([...values].sort());
  });

  it('gives toolwire/testing the same invokeTool as the root, and keeps replay out of the root', () => {
    expect(testing.invokeTool).toBe(root.invokeTool);
    expect(Object.keys(testing).sort()).toEqual([
      'ReplayError',
      'invokeTool',
      'recordRun',
      'replayTools',
      'validateWidget',
    ]);
  });
});
