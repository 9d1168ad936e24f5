import type { Messages } from "~/lib/i18n/messages/types";
import { visitorErrors } from "~/lib/i18n/messages/visitor-errors";

export const de: Messages = {
  name: "Deutsch",
  page: {
    optional: " (optional)",
    choose: "Bitte wählen…",
    honeypot: "Dieses Feld leer lassen",
    send: "Senden",
    sending: "Wird gesendet…",
    sendingHint: "Ihr Formular wird gesendet…",
    submitHint: {
      loading: "Das Formular kann gesendet werden, sobald die Captcha-Prüfung abgeschlossen ist.",
      ready: "Bereit zum Senden.",
      expired: "Senden ist wieder möglich, sobald die Prüfung erneuert wurde.",
      error: "Senden ist möglich, sobald die Captcha-Prüfung oben erfolgreich war.",
      blocked: "Senden ist möglich, sobald das Captcha oben geladen werden kann.",
    },
    captcha: {
      loading: "Wir prüfen, ob Sie ein Mensch sind…",
      ready: "Prüfung abgeschlossen — Sie können das Formular senden.",
      expired: "Die Prüfung ist abgelaufen und wird erneuert…",
      error: "Bei der Captcha-Prüfung ist ein Problem aufgetreten.",
      blocked:
        "Das Captcha konnte nicht geladen werden, vielleicht weil ein Inhaltsblocker es verhindert hat oder keine Verbindung besteht. Erlauben Sie challenges.cloudflare.com oder prüfen Sie Ihre Verbindung und versuchen Sie es dann erneut.",
      retry: "Captcha erneut versuchen",
      noscript:
        "Das Captcha braucht JavaScript. Schalten Sie JavaScript für diese Website ein und laden Sie die Seite neu, um das Formular zu senden.",
    },
    summaryProblem: "Es gibt ein Problem",
    summaryNotSent: "Noch nicht gesendet",
    skipLink: "Zum Inhalt springen",
    footer:
      "Geschützt durch Cloudflare Turnstile: Nichts, was Sie senden, wird gespeichert, bevor die Prüfung bestanden ist. Betrieben mit Gatepost.",
    fileLimitsOne: "Eine {types}-Datei mit bis zu {size}.",
    fileLimitsMany: {
      one: "Bis zu {count} Datei, jeweils im Format {types} und bis zu {size} groß.",
      other: "Bis zu {count} Dateien, jeweils im Format {types} und bis zu {size} groß.",
    },
    fileTooMany: { one: "„{label}“ nimmt höchstens {count} Datei an.", other: "„{label}“ nimmt höchstens {count} Dateien an." },
    fileEmpty: "{name} ist leer: Wählen Sie die Datei erneut aus.",
    fileTooLarge: "{name} ist größer als {size}.",
    fileWrongType: "„{label}“ muss eine Datei im Format {types} sein, und {name} ist keine.",
    stepProgress: "Schritt {step} von {count}",
    stepBack: "Zurück",
    stepNext: "Weiter",
  },
  validation: {
    single: "„{label}“ darf nur einen einzigen Wert haben.",
    required: "Bitte füllen Sie „{label}“ aus.",
    ticked: "Bitte setzen Sie bei „{label}“ ein Häkchen, um fortzufahren.",
    tooLong: { one: "„{label}“ darf höchstens {count} Zeichen lang sein.", other: "„{label}“ darf höchstens {count} Zeichen lang sein." },
    tooShort: {
      one: "„{label}“ muss mindestens {count} Zeichen lang sein.",
      other: "„{label}“ muss mindestens {count} Zeichen lang sein.",
    },
    format: "„{label}“ hat nicht das erwartete Format.",
    email: "„{label}“ muss eine gültige E-Mail-Adresse sein, zum Beispiel name@example.com.",
    url: "„{label}“ muss eine Webadresse sein, die mit https:// beginnt.",
    option: "Wählen Sie für „{label}“ eine der aufgeführten Möglichkeiten.",
    number: "„{label}“ muss eine Zahl sein.",
    min: "„{label}“ muss mindestens {min} sein.",
    max: "„{label}“ darf höchstens {max} sein.",
    asFile: "„{label}“ muss als Datei in einer multipart/form-data-Anfrage gesendet werden.",
    chooseFile: "Wählen Sie eine Datei für „{label}“ aus.",
    uploadTotal: "Die Dateien dürfen zusammen höchstens {size} groß sein.",
  },
  thanks: {
    title: "Eingegangen",
    description: "Was Sie über „{title}“ gesendet haben, ist eingegangen.",
    next: "Wie es weitergeht",
    stepStored: "Was Sie über „{title}“ gesendet haben, hat die Prüfung bestanden und ist sicher gespeichert.",
    stepHandedOver:
      "Es wird jetzt an die Menschen weitergegeben, die dieses Formular betreuen; ist deren System ausgelastet, versucht Gatepost es für Sie weiter.",
    stepDone: "Sie müssen nichts weiter tun und nichts erneut senden.",
    reference: "Ihre Referenz",
    keepReference: "Bewahren Sie die Referenz auf, falls Sie Fragen zu Ihrer Sendung haben.",
    another: "Noch einmal ausfüllen",
    allForms: "Alle Formulare",
  },
  home: {
    title: "Formulare, denen Sie vertrauen können",
    description:
      "Gatepost zeigt Formulare, prüft mit Cloudflare Turnstile, dass jeder Absender ein Mensch ist, und speichert und leitet erst dann weiter, was gesendet wurde.",
    lead: "Jedes Formular prüft mit Cloudflare Turnstile, dass Sie ein Mensch sind, bevor etwas, das Sie senden, gespeichert oder weitergegeben wird.",
    noForms: "Noch keine öffentlichen Formulare",
    noFormsHint: "Hier stehen die als öffentlich markierten Formulare aus app/forms/ oder der Konsole.",
  },
  refusal: {
    notSent: "Nicht gesendet",
    titled: "{title}: nicht gesendet",
    nothingKept:
      "Es wurde nichts gespeichert. Gehen Sie mit der Zurück-Schaltfläche Ihres Browsers zurück, korrigieren Sie die aufgeführten Angaben und senden Sie das Formular erneut.",
    errorCode: "Fehlercode:",
    pageNotFound: "Seite nicht gefunden",
    refused: "Das konnten wir nicht annehmen",
    wrong: "Etwas ist schiefgelaufen",
    home: "Zur Startseite von Gatepost",
  },
  email: { reference: "Referenz: {id}" },
  errors: visitorErrors({
    captchaRetry: "Die Captcha-Prüfung ist fehlgeschlagen oder abgelaufen — bitte versuchen Sie es erneut.",
    captchaUnavailable: "Wir können Sie gerade nicht prüfen — versuchen Sie es in einer Minute erneut.",
    serverProblem: "Dieses Formular ist wegen eines Serverproblems gerade nicht verfügbar.",
    body_too_large: "Was Sie gesendet haben, ist zu groß (die Grenze liegt bei 64 KiB).",
    validation_failed: "Einige Felder brauchen Ihre Aufmerksamkeit.",
    form_not_found: "Es gibt kein Formular mit diesem Namen.",
    not_found: "Unter dieser Adresse gibt es nichts.",
    method_not_allowed: "Diese Adresse nimmt diese Methode nicht an.",
    unsupported_media_type: "Senden Sie das Formular als JSON, URL-kodiert oder als multipart/form-data.",
    malformed_body: "Was Sie gesendet haben, konnte nicht gelesen werden.",
    too_many_fields: "Was Sie gesendet haben, hat zu viele Felder (die Grenze liegt bei 100).",
    invalid_text:
      "Was Sie gesendet haben, enthält Zeichen, die nicht gespeichert werden können (fehlerhafte Kodierung oder Steuerzeichen).",
    file_not_accepted: "Dieses Formular nimmt keine Dateien an: Senden Sie es ohne Anhänge.",
    file_too_large: "Eine Datei ist größer, als dieses Formular annimmt: Die Grenzen stehen neben dem Feld.",
    upload_too_large: "Die Dateien sind zusammen größer, als dieses Formular annimmt: Die Grenzen stehen neben jedem Dateifeld.",
    uploads_unavailable:
      "Wir konnten Ihre Dateien gerade nicht ablegen, daher wurde nichts gespeichert. Bitte versuchen Sie es in einer Minute erneut.",
    turnstile_token_missing: "Bitte schließen Sie vor dem Senden die Captcha-Prüfung ab.",
    storage_unavailable:
      "Unsere Datenbank ist ausgelastet oder nicht erreichbar, daher wurde nichts gespeichert oder geändert. Bitte versuchen Sie es in einer Minute erneut.",
    origin_not_allowed: "Dieses Formular nimmt keine Sendungen von dieser Website an.",
    rate_limited: "Zu viele Sendungen aus Ihrem Netzwerk — bitte warten Sie kurz und versuchen Sie es dann erneut.",
    idempotency_key_reused:
      "Diese Sendung wurde bereits mit anderen Antworten gesendet. Senden Sie das Formular erneut, um daraus eine neue zu machen.",
    form_expired: "Dieses Formular war zu lange geöffnet. Bitte prüfen Sie Ihre Angaben und senden Sie es erneut.",
    form_archived: "Dieses Formular nimmt keine Sendungen mehr an.",
    spam_refused:
      "Diese Nachricht kann über dieses Formular nicht gesendet werden. Formulieren Sie sie um oder erreichen Sie die Website auf anderem Weg.",
    internal_error: "Bei uns ist etwas schiefgelaufen.",
  }),
};
