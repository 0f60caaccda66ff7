/**
 * The sentences for the server's error codes that only the signed-in shell meets (forms, patients,
 * uploads, a failed module), in English: they load with the shell (./shell-catalogue.js merges them
 * into MESSAGES); the sign-in page's own are in ./messages.js. A code is in one of the two, never both.
 */
export const SHELL_ERRORS = {
  permission_denied: {
    message: 'You do not have permission to do this.',
    hint: 'If your work needs it, ask your administrator for a role that allows it.',
  },
  forbidden: {
    message: 'You do not have permission to do this.',
    hint: 'If your work needs it, ask your administrator for a role that allows it.',
  },

  // Passwords.
  wrong_password: {
    message: 'The current password is not right.',
    hint: 'Type the password you signed in with. If you have lost it, ask your administrator to set a new one.',
  },
  weak_password: {
    message:
      'Choose a password of at least 12 characters, with letters, digits or punctuation you can type (not only spaces).',
    hint: 'A few unrelated words make a good password.',
  },
  guessable_password: {
    message:
      'This password is too easy to guess: it is a common password, close to one, a pattern such as a repeat or a keyboard row, or it holds your username.',
    hint: 'Three or four unrelated words make a good password.',
  },
  same_password: {
    message: 'The new password is the one you have now.',
    hint: 'Choose a different password.',
  },
  invalid_value: {
    message: 'A value could not be stored.',
    hint: 'Check what you entered (a date, for example), then try again.',
  },
  invalid_query: {
    message: 'The search could not be read.',
    hint: 'Change what you searched for, then try again.',
  },
  conflict: {
    message: 'Someone else changed this at the same time.',
    hint: 'Reload the page to see the latest version, then try again.',
  },
  'conflict /mrn': {
    message: 'Another patient already has this MRN.',
    hint: 'Search the patient list for it, or give this patient a different MRN.',
  },
  probable_duplicate: {
    message: 'A patient of the same name and birth date is already registered.',
    hint: 'Open the existing patient, or register this one anyway if it is another person.',
  },
  practitioner_exists: {
    message:
      'A practitioner of this name is already in Ward (the same but for case, accents or punctuation).',
    hint: 'Book with that practitioner, or tell the two people apart by their names (a first name or an initial).',
  },
  practitioner_name_taken: {
    message: 'This name already books with another practitioner.',
    hint: 'Choose that practitioner, or rename them first.',
  },
  mrn_unavailable: {
    message: 'Ward could not find a free MRN to assign.',
    hint: 'Type an MRN for this patient, and tell your administrator.',
  },
  body_too_large: { message: 'This is too large to send.', hint: 'Send less at once.' },
  checksum_mismatch: {
    message: 'The file changed or was cut short while it was being sent.',
    hint: 'Send it again.',
  },
  upload_interrupted: { message: 'The upload could not be finished.', hint: 'Send the file again.' },

  // The page and Ward disagree: a bug or an old page.
  not_found: {
    message: 'This could not be found. It may have been removed.',
    hint: 'Go back to the list and open it again.',
  },
  invalid_json: {
    message: 'The page sent something Ward could not read.',
    hint: 'Reload the page and try again. If it keeps happening, tell your administrator.',
  },
  duplicate_key: {
    message: 'The page sent something Ward could not read.',
    hint: 'Reload the page and try again. If it keeps happening, tell your administrator.',
  },
  invalid_utf8: {
    message: 'The page sent something Ward could not read.',
    hint: 'Reload the page and try again. If it keeps happening, tell your administrator.',
  },
  unsupported_media_type: {
    message: 'The page sent something Ward could not read.',
    hint: 'Reload the page and try again. If it keeps happening, tell your administrator.',
  },
  bad_request: {
    message: 'The page sent something Ward could not read.',
    hint: 'Reload the page and try again. If it keeps happening, tell your administrator.',
  },
  method_not_allowed: {
    message: 'This page asked Ward for something it does not do.',
    hint: 'Reload the page. If it keeps happening, tell your administrator.',
  },
  module_unavailable: {
    message: 'This part of Ward is not working just now.',
    hint: 'Other pages still work. Tell your administrator.',
  },
};
