import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { shape } from '../../src/engine/render/shape.js';
import type { ShapeOptions } from '../../src/engine/render/shape-options.js';
import { toWire } from '../../src/engine/render/wire.js';

/** A shaped result as a client reads it: its text and structured content. */
export const shapeResult = (data: unknown, options: ShapeOptions): CallToolResult => shape(data, options).result;

/** A shaped result as the pipeline hands it to the SDK, carrying its structured content's JSON for the transport. */
export const wireResult = (data: unknown, options: ShapeOptions): CallToolResult => toWire(shape(data, options));
