/** MESSAGES (messages.js) in German: the same codes, what the web UI says when Ward refuses a request. */
import { forSealingCodes } from './sealing-codes.js';

const ADMIN =
  'Laden Sie die Seite neu und versuchen Sie es erneut. Wenn es wieder passiert, sagen Sie es Ihrer Administration.';
const UNREADABLE = { message: 'Die Seite hat etwas gesendet, das Ward nicht lesen konnte.', hint: ADMIN };
const UNAVAILABLE = {
  message: 'Ward ist gerade nicht verfügbar.',
  hint: 'Versuchen Sie es in einer Minute erneut. Wenn es wieder passiert, sagen Sie es Ihrer Administration.',
};
const DENIED = {
  message: 'Sie haben keine Berechtigung dafür.',
  hint: 'Wenn Ihre Arbeit es erfordert, bitten Sie Ihre Administration um eine Rolle, die es erlaubt.',
};

/** `{message, hint}` by error code, or by `"<code> <field pointer>"`, as in MESSAGES. */
export const MESSAGES_DE = {
  wrong_code: {
    message: 'Der Code stimmt nicht.',
    hint: 'Geben Sie die 6 Ziffern ein, die die App jetzt für Ward zeigt (jede gilt einmal), und prüfen Sie, ob die Uhr des Telefons richtig geht.',
  },
  too_many_codes: {
    message: 'Für Ihr Konto wurden zu viele falsche Codes versucht.',
    hint: 'Warten Sie fünf Minuten und melden Sie sich dann erneut an. Wenn Sie es nicht waren, ändern Sie Ihr Passwort.',
  },
  challenge_expired: {
    message: 'Diese Anmeldung hat zu lange gedauert.',
    hint: 'Drücken Sie „Neu beginnen“ und melden Sie sich erneut mit Ihrem Passwort an.',
  },
  two_factor_enrolment_required: {
    message: 'Ihre Praxis verlangt die Zwei-Faktor-Anmeldung, die Sie noch nicht eingerichtet haben.',
    hint: 'Laden Sie die Seite neu, um sie einzurichten.',
  },
  guessable_password: {
    message:
      'Dieses Passwort ist zu leicht zu erraten: Es ist ein gängiges Passwort, ähnelt einem, ist ein Muster wie eine Wiederholung oder eine Tastaturreihe, oder es enthält Ihren Benutzernamen.',
    hint: 'Drei oder vier unzusammenhängende Wörter ergeben ein gutes Passwort.',
  },
  probable_duplicate: {
    message: 'Eine Person mit gleichem Namen und Geburtsdatum ist bereits registriert.',
    hint: 'Öffnen Sie den vorhandenen Eintrag, oder registrieren Sie diese Person trotzdem, wenn es eine andere ist.',
  },
  mrn_unavailable: {
    message: 'Ward konnte keine freie MRN zum Vergeben finden.',
    hint: 'Geben Sie für diese Person eine MRN ein und sagen Sie es Ihrer Administration.',
  },
  unauthenticated: {
    message: 'Ihre Sitzung ist abgelaufen.',
    hint: 'Melden Sie sich erneut an, um fortzufahren.',
  },
  invalid_credentials: {
    message: 'Benutzername oder Passwort stimmen nicht.',
    hint: 'Prüfen Sie beides und versuchen Sie es erneut. Wenn Sie Ihr Passwort vergessen haben, bitten Sie Ihre Administration um ein neues.',
  },
  too_many_sign_ins: {
    message: 'Es gab zu viele Anmeldeversuche.',
    hint: 'Warten Sie einige Minuten und versuchen Sie es dann erneut.',
  },
  sign_in_busy: {
    message: 'Gerade melden sich viele Personen an.',
    hint: 'Versuchen Sie es gleich noch einmal.',
  },
  permission_denied: DENIED,
  forbidden: DENIED,
  csrf_failed: {
    message: 'Diese Seite ist veraltet.',
    hint: 'Laden Sie die Seite neu und versuchen Sie es dann erneut.',
  },
  password_change_required: {
    message: 'Wählen Sie Ihr eigenes Passwort, bevor Sie fortfahren.',
    hint: 'Laden Sie die Seite neu, um das Passwortformular zu sehen.',
  },
  user_disabled: {
    message: 'Ihr Konto ist deaktiviert.',
    hint: 'Fragen Sie Ihre Administration, ob Sie noch Zugang haben sollten.',
  },
  wrong_password: {
    message: 'Das aktuelle Passwort stimmt nicht.',
    hint: 'Geben Sie das Passwort ein, mit dem Sie sich angemeldet haben. Wenn Sie es verloren haben, bitten Sie Ihre Administration, ein neues zu setzen.',
  },
  weak_password: {
    message:
      'Wählen Sie ein Passwort mit mindestens 12 Zeichen, aus Buchstaben, Ziffern oder Satzzeichen, die Sie tippen können (nicht nur Leerzeichen).',
    hint: 'Einige unzusammenhängende Wörter ergeben ein gutes Passwort.',
  },
  same_password: {
    message: 'Das neue Passwort ist das, das Sie jetzt haben.',
    hint: 'Wählen Sie ein anderes Passwort.',
  },
  password_change_in_progress: {
    message: 'Ihr Passwort wird bereits geändert.',
    hint: 'Warten Sie einen Moment und melden Sie sich dann mit dem neuen Passwort an.',
  },
  invalid_body: {
    message: 'Einige Ihrer Eingaben müssen korrigiert werden.',
    hint: 'Jedes zu korrigierende Feld sagt, was es braucht.',
  },
  invalid_value: {
    message: 'Ein Wert konnte nicht gespeichert werden.',
    hint: 'Prüfen Sie Ihre Eingabe (zum Beispiel ein Datum) und versuchen Sie es dann erneut.',
  },
  invalid_query: {
    message: 'Die Suche konnte nicht gelesen werden.',
    hint: 'Ändern Sie Ihre Suche und versuchen Sie es dann erneut.',
  },
  conflict: {
    message: 'Jemand anderes hat dies gleichzeitig geändert.',
    hint: 'Laden Sie die Seite neu, um den neuesten Stand zu sehen, und versuchen Sie es dann erneut.',
  },
  'conflict /mrn': {
    message: 'Eine andere Patientin oder ein anderer Patient hat bereits diese MRN.',
    hint: 'Suchen Sie sie in der Patientenliste oder geben Sie eine andere MRN.',
  },
  practitioner_exists: {
    message:
      'Eine Behandlerin oder ein Behandler dieses Namens ist schon in Ward (gleich bis auf Groß- und Kleinschreibung, Akzente oder Satzzeichen).',
    hint: 'Buchen Sie bei dieser Person, oder unterscheiden Sie die beiden durch ihre Namen (einen Vornamen oder eine Initiale).',
  },
  practitioner_name_taken: {
    message: 'Dieser Name wird schon bei einer anderen Behandlerin oder einem anderen Behandler gebucht.',
    hint: 'Wählen Sie diese Person, oder benennen Sie sie zuerst um.',
  },
  body_too_large: { message: 'Das ist zu groß zum Senden.', hint: 'Senden Sie weniger auf einmal.' },
  checksum_mismatch: {
    message: 'Die Datei hat sich beim Senden geändert oder wurde abgeschnitten.',
    hint: 'Senden Sie sie erneut.',
  },
  upload_interrupted: {
    message: 'Das Hochladen konnte nicht abgeschlossen werden.',
    hint: 'Senden Sie die Datei erneut.',
  },
  not_found: {
    message: 'Das wurde nicht gefunden. Vielleicht wurde es entfernt.',
    hint: 'Gehen Sie zurück zur Liste und öffnen Sie es erneut.',
  },
  invalid_json: UNREADABLE,
  duplicate_key: UNREADABLE,
  invalid_utf8: UNREADABLE,
  unsupported_media_type: UNREADABLE,
  bad_request: UNREADABLE,
  method_not_allowed: {
    message: 'Diese Seite hat Ward um etwas gebeten, das es nicht tut.',
    hint: 'Laden Sie die Seite neu. Wenn es wieder passiert, sagen Sie es Ihrer Administration.',
  },
  network_error: {
    message: 'Ward ist nicht erreichbar.',
    hint: 'Prüfen Sie Ihre Netzwerkverbindung und versuchen Sie es dann erneut. Wenn es wieder passiert, sagen Sie es Ihrer Administration.',
  },
  unexpected_response: {
    message: 'Ward ist nicht erreichbar.',
    hint: 'Versuchen Sie es in einer Minute erneut. Wenn es wieder passiert, sagen Sie es Ihrer Administration.',
  },
  too_many_requests: {
    message: 'Ward ist ausgelastet.',
    hint: 'Warten Sie einen Moment und versuchen Sie es dann erneut.',
  },
  unavailable: UNAVAILABLE,
  database_unavailable: UNAVAILABLE,
  ...forSealingCodes({
    message: 'Die Anmeldung mit zweitem Faktor ist gerade nicht verfügbar.',
    hint: 'Sagen Sie es Ihrer Administration. Zum Anmelden können Sie solange einen Ihrer Wiederherstellungscodes verwenden.',
  }),
  auth_unavailable: {
    message: 'Die Anmeldung ist noch nicht verfügbar.',
    hint: 'Ihre Administration hat die Einrichtung von Ward noch nicht abgeschlossen; sagen Sie es ihr.',
  },
  module_unavailable: {
    message: 'Dieser Teil von Ward funktioniert gerade nicht.',
    hint: 'Andere Seiten funktionieren weiter. Sagen Sie es Ihrer Administration.',
  },
  internal_error: {
    message: 'In Ward ist etwas schiefgegangen.',
    hint: 'Versuchen Sie es erneut. Wenn es wieder passiert, sagen Sie Ihrer Administration, was Sie gerade getan haben.',
  },
  shell_unavailable: {
    message: 'Ein Teil von Ward konnte nicht geladen werden.',
    hint: 'Prüfen Sie Ihre Netzwerkverbindung und laden Sie die Seite dann neu. Wenn es wieder passiert, sagen Sie es Ihrer Administration.',
  },
};
