/**
 * The original name of an uploaded file, made safe to show and to send back in a
 * Content-Disposition header. Pure. A browser sends only the last part of a path, but a client may
 * send any text: the folders are dropped, control and invisible characters become `_`, and the
 * name is NFC, trimmed and at most 255 characters, keeping its extension when it must be cut.
 */

const MAX = 255;
/** C0 and C1 controls, and format characters (bidirectional overrides, zero-width ones). */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

export function sanitiseFileName(raw: string): string | null {
  const last = raw.normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = last.replace(UNSAFE, '_').trim();
  if (cleaned === '' || /^\.+$/.test(cleaned)) return null;
  const chars = [...cleaned];
  if (chars.length <= MAX) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 ? [...cleaned.slice(dot)] : [];
  if (extension.length > 16) return chars.slice(0, MAX).join('');
  return [...chars.slice(0, MAX - extension.length), ...extension].join('');
}

/**
 * The ASCII stand-in for the `filename=` of Content-Disposition, beside the exact UTF-8 one in
 * `filename*=`: accents dropped (Müller → Muller), any other non-ASCII character `_`. Sent always
 * for a name beyond ASCII, since browsers read Latin-1 bytes in `filename=` differently.
 */
export function asciiFileName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\]/g, '_');
}

/** Whether a content type may be shown in the page rather than downloaded: never HTML, SVG or XML. */
const PREVIEWABLE = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
]);

export function previewable(contentType: string): boolean {
  return PREVIEWABLE.has(contentType.split(';')[0]!.trim().toLowerCase());
}
