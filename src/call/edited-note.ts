/**
 * The note the model reads before a result when an approver edited the arguments, bounded so that the tool's own
 * output always keeps its room: the note's JSON is shown only up to 512 bytes (else the edited fields are named,
 * see `editedNoteText` in src/tool/model-text.ts), and with `maxOutputBytes` the note takes at most half of it.
 *
 * @module
 */
import { editedNoteText } from '../tool/model-text';
import { serializeOutput, truncateUtf8 } from '../tool/output';
import type { CallState } from './types';

/** `The approver edited the arguments of <name> to <JSON>.`, or the names of the edited fields when longer. */
export function editedNote(call: CallState, args: object): string {
  const { redaction } = call;
  const json =
    redaction?.active === true ? redaction.json(args) : serializeOutput(args, call.options.redactor);
  return editedNoteText(call.tool.name, json, Object.keys(args));
}

/** `note` on a line before `output`; with `maxOutputBytes`, the note is cut to half of it. */
export function withNote(note: string, output: string, maxOutputBytes: number | undefined): string {
  const shown = maxOutputBytes === undefined ? note : truncateUtf8(note, Math.floor(maxOutputBytes / 2));
  return `${shown}\n${output}`;
}
