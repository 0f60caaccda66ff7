/**
 * The English words of the first page: sign-in, its second step, the language chooser and the page
 * shown when Ward is not answering (ICU MessageFormat). The rest of the shell's words are in
 * shell.js, which loads with the signed-in shell; a key is in one of the two, never both.
 */
export default {
  'unreachable.title': 'Ward is not answering',
  'unreachable.help': 'Check that the backend runs ({command}, or {npm}), then try again.',
  'action.tryAgain': 'Try again',
  'signIn.title': 'Sign in to Ward',
  'signIn.expired': 'Your session ended. Sign in again to continue where you were.',
  'signIn.failed': 'Sign-in failed',
  'signIn.username': 'Username',
  'signIn.password': 'Password',
  'signIn.submit': 'Sign in',
  'shell.language': 'Language',
  'shell.languageFailed': 'That language could not be loaded: check the connection and choose it again.',
  'ui.details': 'Details for your administrator',
  'ui.loading': 'Loading…',
  'ui.required': 'Fill in this field.',
  'twoFactor.signInTitle': 'Two-factor sign-in',
  'twoFactor.recoveryIntro':
    'Type one of the recovery codes you saved when you set up two-factor sign-in. Each works once.',
  'twoFactor.codeIntro':
    'Open the authenticator app on your phone and type the 6-digit code it shows for Ward.',
  'twoFactor.recoveryCode': 'Recovery code',
  'twoFactor.code': 'Code',
  'twoFactor.useApp': 'Use the app instead',
  'twoFactor.useRecovery': 'Use a recovery code',
  'twoFactor.startOver': 'Start over',
};
