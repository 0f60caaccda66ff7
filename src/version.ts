import packageJson from '../package.json' with { type: 'json' };

/** The service version reported by /health (SPEC §2.9) and `ward --version`. */
export const VERSION: string = packageJson.version;
