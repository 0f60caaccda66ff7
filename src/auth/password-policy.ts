/**
 * Whether a new password is too easy to guess: zxcvbn-ts (@zxcvbn-ts/core) with its common
 * dictionary (@zxcvbn-ts/language-common: some 49,000 of the passwords most often found in
 * breaches, and the diceware word list), matching them also reversed, in l33t spelling, repeated,
 * and next to keyboard rows, sequences, dates and the username. A password must take at least
 * 10^8 guesses (zxcvbn's score 3): a list look-up alone would let `passwordpassword` or
 * `qwertyuiop123` through. Loaded at the first check, as it takes some 300 ms to build.
 */
import type { ZxcvbnFactory, ZxcvbnResult } from '@zxcvbn-ts/core';
import { passwordProblem, type PasswordProblem } from './password.ts';

/** zxcvbn's score: 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_SCORE = 3;

let factory: Promise<ZxcvbnFactory> | undefined;

function estimator(): Promise<ZxcvbnFactory> {
  factory ??= (async () => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  })();
  return factory;
}

/** zxcvbn's warning keys, in Ward's words; any other key gets the general sentence. */
const WARNINGS = new Map<string, string>(
  Object.entries({
    topTen: 'the password is one of the ten most common passwords',
    topHundred: 'the password is one of the hundred most common passwords',
    common: 'the password is on the list of passwords most often found in breaches',
    similarToCommon: 'the password is a common password with small changes, which guessers try first',
    straightRow: 'the password is a row of keys on the keyboard',
    keyPattern: 'the password is a short pattern of keys on the keyboard',
    simpleRepeat: 'the password repeats one character',
    extendedRepeat: 'the password repeats a short part',
    sequences: 'the password is a sequence such as abcd or 1234',
    recentYears: 'the password is mostly a recent year',
    dates: 'the password is mostly a date',
    wordByItself: 'the password is one common word',
    namesByThemselves: 'the password is a name',
    commonNames: 'the password is a common name',
    userInputs: 'the password holds the username',
  }),
);

const GENERAL = 'the password is too easy to guess';

/** The problem of a zxcvbn result, or null when its score is enough (pure). */
export function guessabilityProblem(
  result: Pick<ZxcvbnResult, 'score' | 'feedback'>,
): PasswordProblem | null {
  if (result.score >= MIN_SCORE) return null;
  const warning = result.feedback.warning;
  return {
    message: (warning === null ? undefined : WARNINGS.get(warning)) ?? GENERAL,
    hint: 'choose a passphrase of three or four unrelated words, or let a password manager make one',
  };
}

export interface NewPasswordProblem extends PasswordProblem {
  /** `weak_password`: the basic rules; `guessable_password`: too easy to guess. */
  code: 'weak_password' | 'guessable_password';
}

/**
 * Why a new password is refused, or null: passwordProblem's rules (length, control characters),
 * then guessability, with `username` counted as known to a guesser.
 */
export async function newPasswordProblem(
  password: string,
  username: string,
): Promise<NewPasswordProblem | null> {
  const basic = passwordProblem(password);
  if (basic !== null) return { code: 'weak_password', ...basic };
  const zxcvbn = await estimator();
  const guessable = guessabilityProblem(zxcvbn.check(password.normalize('NFC'), [username]));
  return guessable === null ? null : { code: 'guessable_password', ...guessable };
}
