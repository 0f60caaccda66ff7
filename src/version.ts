import packageJson from '../package.json' with { type: 'json' };

/** The service version reported by /health and `ward --version`. */
export const VERSION: string = packageJson.version;
