/**
 * Says where a JSON syntax error is, in lines and columns, whatever form V8's message took.
 * V8 gives "... in JSON at position 13 (line 3 column 3)" for most syntax errors but only a
 * snippet for an unexpected token. There the error sits at the first character whose inclusion
 * makes a prefix fail before its end; a binary search over prefixes finds it.
 */
export function describeJsonError(text: string, error: Error): string {
  const reason = error.message
    .replace(/(?: in JSON)? at position \d+.*$/s, '')
    .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
    .replaceAll('\n', '\\n')
    .replaceAll('\r', '\\r')
    .replaceAll('\t', '\\t');
  const position = reportedPosition(error) ?? failingPosition(text);
  const before = text.slice(0, position).split('\n');
  return `is not valid JSON: ${reason} at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

const reportedPosition = (error: Error): number | undefined => {
  const position = / at position (\d+)/.exec(error.message)?.[1];
  return position === undefined ? undefined : Number(position);
};

function failingPosition(text: string): number {
  const failsBeforeEnd = (prefix: string): boolean => {
    try {
      JSON.parse(prefix);
      return false;
    } catch (error) {
      if (/Unexpected end of JSON input|Unterminated string/.test((error as Error).message)) return false;
      return (reportedPosition(error as Error) ?? 0) < prefix.length;
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (failsBeforeEnd(text.slice(0, middle))) high = middle - 1;
    else low = middle;
  }
  return low;
}
