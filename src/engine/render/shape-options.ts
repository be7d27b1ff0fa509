import type { ListShape, ToolDefinition } from '../define.js';
import { isRecord } from '../../json.js';

/** The list tools' `view` option: compact (the default) or every field. */
export const VIEWS = ['compact', 'full'] as const;
export type View = (typeof VIEWS)[number];

export interface ShapeOptions {
  view: View;
  list?: ListShape;
  /** Result budget in characters (tokens x 4), measured on the rendered text and on the structured JSON. */
  capChars: number;
  /** The tool's own readable rendering, in place of the generic outline. */
  text?: ToolDefinition['text'];
  /** A trusted first line (a write's affected id and next step). */
  heading?: string;
  /** The tool's own account of a result that stopped early (`stoppedEarly`): it goes first, above everything. */
  stoppedEarly?: string;
}

/** Values nested deeper than this are cut: no record the API documents comes close, and text indentation grows with depth. */
export const MAX_RENDER_DEPTH = 16;

/** The records of a list field of a value, if it holds a list there. */
export function listItems(value: unknown, field: string): unknown[] | undefined {
  const items = isRecord(value) ? value[field] : undefined;
  return Array.isArray(items) ? items : undefined;
}
