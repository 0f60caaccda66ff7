/**
 * Which paths the shell links and routes to: a path of this site, starting with a single `/`
 * (`//` or `/\` is another host), and without whitespace or control characters. A browser drops
 * tabs and line breaks from a link before reading it, so `/<tab>/host/x` would lead to
 * `//host/x`, another site. The manifest schema refuses the same navigation paths (RoutePath).
 */
const SHELL_PATH = /^\/(?![/\\])[^\s\p{Cc}]*$/u;

/** Whether the shell may link or route to `path`. Pure. */
export const isShellPath = (path) => typeof path === 'string' && SHELL_PATH.test(path);
