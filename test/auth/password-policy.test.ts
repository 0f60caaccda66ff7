import test from 'ava';
import fc from 'fast-check';
import { guessabilityProblem, MIN_SCORE, newPasswordProblem } from '../../src/auth/password-policy.ts';
import { randomPassword } from '../../src/auth/password.ts';

const messageOf = async (password: string, username = 'alice') =>
  (await newPasswordProblem(password, username))?.message ?? null;

test('passwords from the breach list are refused, however long, and so are their small variations', async (t) => {
  t.is(
    await messageOf('123456789012'),
    'the password is on the list of passwords most often found in breaches',
  );
  t.is(
    await messageOf('1q2w3e4r5t6y'),
    'the password is on the list of passwords most often found in breaches',
  );
  for (const variation of ['qwertyuiop123', 'iloveyou1234', 'Password1234'])
    t.regex((await messageOf(variation)) ?? 'accepted', /common password|breaches/, variation);
});

test('long but guessable passwords are refused with what makes them guessable', async (t) => {
  t.is(await messageOf('aaaaaaaaaaaa'), 'the password repeats one character');
  t.is(await messageOf('passwordpassword'), 'the password repeats a short part');
  t.is(await messageOf('abcdefghijkl'), 'the password is a sequence such as abcd or 1234');
  const problem = await newPasswordProblem('passwordpassword', 'alice');
  t.regex(problem?.hint ?? '', /three or four unrelated words/);
});

test('the username counts as known to a guesser', async (t) => {
  t.is(await messageOf('margaret1234!', 'margaret'), 'the password holds the username');
  t.is(await messageOf('margaret1234!', 'someone'), null, 'the same password for another user is fine');
});

test('passphrases and random passwords pass; the basic rules still come first', async (t) => {
  for (const fine of [
    'correct horse battery',
    'a passphrase of my own',
    '  correct horse battery  ',
    randomPassword(),
  ])
    t.is(await messageOf(fine), null, fine);
  t.is(await messageOf('short'), 'the password is too short: use at least 12 characters');
  t.is(await messageOf(' '.repeat(12)), 'the password is only spaces');
});

test('guessabilityProblem: refused exactly below the minimum score, in its own words for any warning', (t) => {
  fc.assert(
    fc.property(fc.constantFrom(0, 1, 2, 3, 4), fc.option(fc.string(), { nil: null }), (score, warning) => {
      const problem = guessabilityProblem({
        score: score as 0 | 1 | 2 | 3 | 4,
        feedback: { warning, suggestions: [] },
      });
      t.is(problem === null, score >= MIN_SCORE);
      if (problem !== null) t.regex(problem.message, /^the password /);
    }),
  );
});
