import type { FormTranslation } from "~/forms/schema";
import type { Lang } from "~/lib/text/languages";
import { REPLY_EMAIL } from "~/forms/translations/reply-email";

// The contact form's texts in every language Gatepost ships besides its own English.
export const CONTACT_TRANSLATIONS: Readonly<Record<Exclude<Lang, "en">, FormTranslation>> = {
  de: {
    title: "Kontakt",
    description: "Schreiben Sie uns eine Nachricht, und wir antworten Ihnen per E-Mail.",
    fields: {
      name: { label: "Ihr Name", hint: "Wie wir Sie ansprechen dürfen." },
      email: REPLY_EMAIL.de,
      message: { label: "Nachricht", hint: "Zwischen 10 und 5.000 Zeichen." },
    },
    confirmation: {
      subject: "Wir haben Ihre Nachricht erhalten",
      text: "Danke für Ihre Nachricht. Sie ist bei uns angekommen, und wir antworten Ihnen per E-Mail.\n\nFalls Sie uns nicht geschrieben haben, können Sie diese E-Mail ignorieren: Sie erhalten nichts weiter.",
    },
    successMessage: "Danke — Ihre Nachricht ist bei uns angekommen. Wir antworten Ihnen per E-Mail.",
  },
  fr: {
    title: "Nous contacter",
    description: "Envoyez-nous un message et nous vous répondrons par e-mail.",
    fields: {
      name: { label: "Votre nom", hint: "Comment vous souhaitez que nous vous appelions." },
      email: REPLY_EMAIL.fr,
      message: { label: "Message", hint: "Entre 10 et 5 000 caractères." },
    },
    confirmation: {
      subject: "Nous avons bien reçu votre message",
      text: "Merci de nous avoir écrit. Votre message nous est bien parvenu et nous vous répondrons par e-mail.\n\nSi vous ne nous avez pas écrit, vous pouvez ignorer cet e-mail : vous ne recevrez rien d’autre.",
    },
    successMessage: "Merci — votre message nous est bien parvenu. Nous vous répondrons par e-mail.",
  },
  es: {
    title: "Contacto",
    description: "Envíanos un mensaje y te responderemos por correo electrónico.",
    fields: {
      name: { label: "Tu nombre", hint: "Cómo quieres que te llamemos." },
      email: REPLY_EMAIL.es,
      message: { label: "Mensaje", hint: "Entre 10 y 5000 caracteres." },
    },
    confirmation: {
      subject: "Hemos recibido tu mensaje",
      text: "Gracias por escribirnos. Tu mensaje nos ha llegado y te responderemos por correo electrónico.\n\nSi no nos has escrito, puedes ignorar este correo: no recibirás nada más.",
    },
    successMessage: "Gracias: tu mensaje nos ha llegado. Te responderemos por correo electrónico.",
  },
  it: {
    title: "Contattaci",
    description: "Mandaci un messaggio e ti risponderemo via e-mail.",
    fields: {
      name: { label: "Il tuo nome", hint: "Come preferisci che ti chiamiamo." },
      email: REPLY_EMAIL.it,
      message: { label: "Messaggio", hint: "Tra 10 e 5.000 caratteri." },
    },
    confirmation: {
      subject: "Abbiamo ricevuto il tuo messaggio",
      text: "Grazie per averci scritto. Il tuo messaggio ci è arrivato e ti risponderemo via e-mail.\n\nSe non ci hai scritto, puoi ignorare questa e-mail: non riceverai nient’altro.",
    },
    successMessage: "Grazie: il tuo messaggio ci è arrivato. Ti risponderemo via e-mail.",
  },
  pt: {
    title: "Contacte-nos",
    description: "Envie-nos uma mensagem e responderemos por e-mail.",
    fields: {
      name: { label: "O seu nome", hint: "Como gostaria que nos dirigíssemos a si." },
      email: REPLY_EMAIL.pt,
      message: { label: "Mensagem", hint: "Entre 10 e 5000 caracteres." },
    },
    confirmation: {
      subject: "Recebemos a sua mensagem",
      text: "Obrigado por nos escrever. A sua mensagem chegou até nós e responderemos por e-mail.\n\nSe não nos escreveu, pode ignorar este e-mail: não receberá mais nada.",
    },
    successMessage: "Obrigado — a sua mensagem chegou até nós. Responderemos por e-mail.",
  },
  nl: {
    title: "Neem contact op",
    description: "Stuur ons een bericht en we antwoorden u per e-mail.",
    fields: {
      name: { label: "Uw naam", hint: "Hoe u aangesproken wilt worden." },
      email: REPLY_EMAIL.nl,
      message: { label: "Bericht", hint: "Tussen 10 en 5.000 tekens." },
    },
    confirmation: {
      subject: "We hebben uw bericht ontvangen",
      text: "Bedankt voor uw bericht. Het is bij ons aangekomen en we antwoorden u per e-mail.\n\nHebt u ons niet geschreven, dan kunt u deze e-mail negeren: u ontvangt verder niets.",
    },
    successMessage: "Bedankt — uw bericht is bij ons aangekomen. We antwoorden u per e-mail.",
  },
  pl: {
    title: "Kontakt",
    description: "Wyślij nam wiadomość, a odpowiemy e-mailem.",
    fields: {
      name: { label: "Imię i nazwisko", hint: "Jak mamy się do Ciebie zwracać." },
      email: REPLY_EMAIL.pl,
      message: { label: "Wiadomość", hint: "Od 10 do 5000 znaków." },
    },
    confirmation: {
      subject: "Otrzymaliśmy Twoją wiadomość",
      text: "Dziękujemy za wiadomość. Dotarła do nas i odpowiemy e-mailem.\n\nJeśli to nie Ty do nas pisałeś(-aś), zignoruj tego e-maila: nic więcej nie wyślemy.",
    },
    successMessage: "Dziękujemy — Twoja wiadomość do nas dotarła. Odpowiemy e-mailem.",
  },
  ja: {
    title: "お問い合わせ",
    description: "メッセージをお送りください。メールでご返信します。",
    fields: {
      name: { label: "お名前", hint: "お呼びする際のお名前をご記入ください。" },
      email: REPLY_EMAIL.ja,
      message: { label: "メッセージ", hint: "10〜5,000 文字でご記入ください。" },
    },
    confirmation: {
      subject: "メッセージを受け付けました",
      text: "お問い合わせいただきありがとうございます。メッセージは確かに届きました。メールでご返信します。\n\nお心当たりのない場合は、このメールを無視してください。今後メールが届くことはありません。",
    },
    successMessage: "ありがとうございます。メッセージは確かに届きました。メールでご返信します。",
  },
  ar: {
    title: "اتصل بنا",
    description: "أرسل إلينا رسالة وسنرد عليك عبر البريد الإلكتروني.",
    fields: {
      name: { label: "اسمك", hint: "الاسم الذي تحب أن نخاطبك به." },
      email: REPLY_EMAIL.ar,
      message: { label: "الرسالة", hint: "من 10 إلى 5000 حرف." },
    },
    confirmation: {
      subject: "تلقّينا رسالتك",
      text: "شكرًا لمراسلتك لنا. وصلتنا رسالتك وسنرد عليك عبر البريد الإلكتروني.\n\nإذا لم تراسلنا، يمكنك تجاهل هذه الرسالة: لن يُرسَل إليك أي شيء آخر.",
    },
    successMessage: "شكرًا لك — وصلتنا رسالتك. سنرد عليك عبر البريد الإلكتروني.",
  },
};
