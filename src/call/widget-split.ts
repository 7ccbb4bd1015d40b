/**
 * `{ ...data, widget }`: the widget split off a result (or a preliminary result) and validated, the rest kept for
 * the model's text. An invalid widget is reported and dropped; the data still goes through.
 *
 * @module
 */
import { isPlainObject } from '../json';
import { thrownMessage } from '../tool/output';
import { formatPath } from '../tool/schema/path';
import { validateWidget, type Widget } from '../tool/widget';
import type { CallState } from './types';

function reportInvalidWidget(call: CallState, path: string, message: string): void {
  // The message may quote the widget's values: redacted as the call's output is (sensitive fields included).
  const redactor = call.options.redactor;
  const info = {
    toolName: call.tool.name,
    callId: call.ctx.callId,
    path: redactor === undefined ? path : redactor.text(path),
    message: redactor === undefined ? message : redactor.text(message),
  };
  try {
    if (call.options.onWidgetInvalid) call.options.onWidgetInvalid(info);
    else
      console.warn(
        `toolwire: dropped the invalid widget of ${info.toolName} (call ${info.callId}): ${path}: ${message}`,
      );
  } catch {
    // A failing listener must not change the call's result.
  }
}

/**
 * Splits `{ ...data, widget }` into the data the model reads and a validated widget (or none). Never throws: a
 * `widget` getter that throws is an invalid widget at `(root)`. The data keeps the result's other properties
 * as they are (getters included), so `serializeOutput` writes them by its usual rules.
 */
export function splitWidget(call: CallState, value: unknown): { data: unknown; widget?: Widget } {
  let descriptors: PropertyDescriptorMap;
  try {
    if (!isPlainObject(value) || !Object.hasOwn(value, 'widget')) return { data: value };
    descriptors = Object.getOwnPropertyDescriptors(value);
    delete descriptors.widget;
  } catch {
    return { data: value }; // a hostile proxy: serializeOutput copes with it
  }
  const data: unknown = Object.create(Object.getPrototypeOf(value), descriptors);
  let widget: unknown;
  try {
    widget = value.widget;
  } catch (error) {
    reportInvalidWidget(call, formatPath([]), `could not be read: ${thrownMessage(error, 'its getter')}`);
    return { data };
  }
  if (widget === undefined) return { data };
  const checked = validateWidget(widget);
  if (checked.ok) return { data, widget: checked.widget };
  reportInvalidWidget(call, checked.path, checked.message);
  return { data };
}
