/**
 * A fault after which a source cannot be read any further (bytes that are not UTF-8, broken JSON,
 * a record with no end). Thrown by the byte and text layers, caught by each format reader, which
 * yields `warning` as its last item and stops cleanly. Anything else thrown is a bug, not bad input.
 */
import type { ImportWarning, SourceItem } from './records.ts';
import type { At } from './warnings.ts';

export class InputFault extends Error {
  /** The warning to record; its row is filled in by the reader, which knows what a row is in its format. */
  readonly warning: (at: At) => ImportWarning;
  /** 1-based line of the fault, for readers whose rows are lines. */
  readonly line: number;

  constructor(line: number, warning: (at: At) => ImportWarning) {
    super(warning({ row: line }).message);
    this.name = 'InputFault';
    this.line = line;
    this.warning = warning;
  }
}

/** Passes `items` through; an `InputFault` becomes the last item, a warning on the row `rowOf` gives. */
export async function* stopAtFault(
  items: AsyncIterable<SourceItem>,
  rowOf: (fault: InputFault) => number = (fault) => fault.line,
): AsyncGenerator<SourceItem> {
  try {
    yield* items;
  } catch (error) {
    if (!(error instanceof InputFault)) throw error;
    yield { kind: 'warning', warning: error.warning({ row: rowOf(error) }) };
  }
}
