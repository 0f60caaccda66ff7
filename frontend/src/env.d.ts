/** The shell imports its style sheet for Vite to build; it exports nothing. */
declare module '*.css';
