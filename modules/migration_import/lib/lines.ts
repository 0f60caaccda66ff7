/** Text chunks to numbered lines (without their `\n` or `\r\n`), each at most `maxChars` long so memory stays bounded. */
import { InputFault } from './fault.ts';
import { warn } from './warnings.ts';

export interface Line {
  line: number;
  text: string;
}

export async function* splitLines(chunks: AsyncIterable<string>, maxChars: number): AsyncGenerator<Line> {
  let rest = '';
  let line = 1;
  for await (const chunk of chunks) {
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      yield {
        line: line++,
        text: text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end),
      };
      start = end + 1;
    }
    rest = text.slice(start);
    if (rest.length > maxChars) throw new InputFault(line, (at) => warn.lineTooLong(at, maxChars));
  }
  if (rest !== '') yield { line, text: rest.endsWith('\r') ? rest.slice(0, -1) : rest };
}
