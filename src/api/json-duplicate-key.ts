/**
 * A key given twice in one object of a JSON text. JSON.parse keeps the last value without a word,
 * so `{"mrn": "A-1", "mrn": "B-2"}` would store B-2 while the sender's eyes read A-1; the text is
 * read again here to find such a key. Pure, and linear in the text: strings are skipped with
 * `indexOf`, and nesting is an explicit stack, since JSON.parse accepts depth beyond the call stack.
 */

export interface DuplicateKey {
  key: string;
  /** JSON pointer of the object that has the key twice (`/` for the root). */
  pointer: string;
}

type Frame =
  { kind: 'object'; keys: Set<string>; key: string; expectKey: boolean } | { kind: 'array'; index: number };

/** Index of the quote that closes the string opening at `open`. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}

const escape = (step: string): string => step.replaceAll('~', '~0').replaceAll('/', '~1');

/** Where the object on top of `stack` sits: each frame below it names the child it is inside. */
function pointer(stack: Frame[]): string {
  const steps = stack
    .slice(0, -1)
    .map((frame) => (frame.kind === 'array' ? String(frame.index) : escape(frame.key)));
  return `/${steps.join('/')}`;
}

/**
 * The first key, in the order of the text, that an object of `text` already has; null when every
 * object's keys are distinct. `text` must be JSON that JSON.parse accepted: nothing is validated.
 */
export function findDuplicateKey(text: string): DuplicateKey | null {
  const stack: Frame[] = [];
  for (let at = 0; at < text.length; at++) {
    switch (text[at]) {
      case '{':
        stack.push({ kind: 'object', keys: new Set(), key: '', expectKey: true });
        break;
      case '[':
        stack.push({ kind: 'array', index: 0 });
        break;
      case '}':
      case ']':
        stack.pop();
        break;
      case ',': {
        const top = stack.at(-1)!;
        if (top.kind === 'array') top.index++;
        else top.expectKey = true;
        break;
      }
      case '"': {
        const end = closingQuote(text, at);
        const top = stack.at(-1);
        if (top?.kind === 'object' && top.expectKey) {
          const key = JSON.parse(text.slice(at, end + 1)) as string;
          if (top.keys.has(key)) return { key, pointer: pointer(stack) };
          top.keys.add(key);
          top.key = key;
          top.expectKey = false;
        }
        at = end;
        break;
      }
    }
  }
  return null;
}
