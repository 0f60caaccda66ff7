/**
 * The codes Ward answers with when it cannot use two-factor secrets (SECRET_KEY missing, different
 * or damaged; a secret stored unsealed): the person signing in can do the same about each, so each
 * language says one sentence for them all.
 */
const SEALING_CODES = [
  'secret_key_missing',
  'secret_key_mismatch',
  'secret_not_sealed',
  'sealed_secret_unreadable',
  'sealed_secret_damaged',
];

/** `entry` under every sealing code, for a catalogue to spread in. */
export const forSealingCodes = (entry) => Object.fromEntries(SEALING_CODES.map((code) => [code, entry]));
