import type { FormTranslation } from "~/forms/schema";
import type { Lang } from "~/lib/text/languages";
import { REPLY_EMAIL } from "~/forms/translations/reply-email";

// The job application form's texts in every language Gatepost ships besides its own English.
export const APPLY_TRANSLATIONS: Readonly<Record<Exclude<Lang, "en">, FormTranslation>> = {
  de: {
    title: "Bewerben",
    description: "Schicken Sie uns Ihren Lebenslauf, und wir antworten Ihnen per E-Mail.",
    fields: {
      name: { label: "Ihr Name", hint: "So, wie er in Ihrem Lebenslauf steht." },
      email: REPLY_EMAIL.de,
      cv: { label: "Ihr Lebenslauf", hint: "Ihr Lebenslauf, so wie Sie ihn jedem Arbeitgeber schicken würden." },
      role: {
        label: "Die Stelle",
        hint: "Wählen Sie die, die am besten passt.",
        options: { designer: "Design", developer: "Entwicklung", other: "Etwas anderes" },
      },
      portfolio: { label: "Link zu Ihrem Portfolio", hint: "Eine Seite mit Ihren Designarbeiten." },
    },
    steps: ["Über Sie", "Ihr Lebenslauf"],
    confirmation: {
      subject: "Wir haben Ihre Bewerbung erhalten",
      text: "Danke für Ihre Bewerbung. Sie und Ihr Lebenslauf sind bei uns angekommen, und wir antworten Ihnen per E-Mail.\n\nFalls Sie sich nicht beworben haben, können Sie diese E-Mail ignorieren: Sie erhalten nichts weiter.",
    },
    successMessage: "Danke — Ihre Bewerbung ist bei uns angekommen. Wir antworten Ihnen per E-Mail.",
  },
  fr: {
    title: "Postuler",
    description: "Envoyez-nous votre CV et nous vous répondrons par e-mail.",
    fields: {
      name: { label: "Votre nom", hint: "Tel qu’il figure sur votre CV." },
      email: REPLY_EMAIL.fr,
      cv: { label: "Votre CV", hint: "Votre curriculum vitae, tel que vous l’enverriez à n’importe quel employeur." },
      role: {
        label: "Le poste",
        hint: "Choisissez le plus proche.",
        options: { designer: "Design", developer: "Développement", other: "Autre chose" },
      },
      portfolio: { label: "Lien vers votre portfolio", hint: "Une page montrant vos travaux de design." },
    },
    steps: ["À propos de vous", "Votre CV"],
    confirmation: {
      subject: "Nous avons bien reçu votre candidature",
      text: "Merci pour votre candidature. Elle nous est bien parvenue avec votre CV et nous vous répondrons par e-mail.\n\nSi vous n’avez pas postulé, vous pouvez ignorer cet e-mail : vous ne recevrez rien d’autre.",
    },
    successMessage: "Merci — votre candidature nous est bien parvenue. Nous vous répondrons par e-mail.",
  },
  es: {
    title: "Solicitar un empleo",
    description: "Envíanos tu CV y te responderemos por correo electrónico.",
    fields: {
      name: { label: "Tu nombre", hint: "Tal como aparece en tu CV." },
      email: REPLY_EMAIL.es,
      cv: { label: "Tu CV", hint: "Tu currículum, tal como lo enviarías a cualquier empresa." },
      role: {
        label: "El puesto",
        hint: "Elige el más parecido.",
        options: { designer: "Diseño", developer: "Desarrollo", other: "Otra cosa" },
      },
      portfolio: { label: "Enlace a tu portafolio", hint: "Una página con tu trabajo de diseño." },
    },
    steps: ["Sobre ti", "Tu CV"],
    confirmation: {
      subject: "Hemos recibido tu candidatura",
      text: "Gracias por tu candidatura. Nos han llegado tu solicitud y tu CV, y te responderemos por correo electrónico.\n\nSi no has enviado ninguna candidatura, puedes ignorar este correo: no recibirás nada más.",
    },
    successMessage: "Gracias: tu candidatura nos ha llegado. Te responderemos por correo electrónico.",
  },
  it: {
    title: "Candidati",
    description: "Mandaci il tuo CV e ti risponderemo via e-mail.",
    fields: {
      name: { label: "Il tuo nome", hint: "Come appare nel tuo CV." },
      email: REPLY_EMAIL.it,
      cv: { label: "Il tuo CV", hint: "Il tuo curriculum vitae, come lo invieresti a qualsiasi datore di lavoro." },
      role: { label: "Il ruolo", hint: "Scegli il più vicino.", options: { designer: "Design", developer: "Sviluppo", other: "Altro" } },
      portfolio: { label: "Link al tuo portfolio", hint: "Una pagina con i tuoi lavori di design." },
    },
    steps: ["Su di te", "Il tuo CV"],
    confirmation: {
      subject: "Abbiamo ricevuto la tua candidatura",
      text: "Grazie per esserti candidato. La tua candidatura e il tuo CV ci sono arrivati e ti risponderemo via e-mail.\n\nSe non ti sei candidato, puoi ignorare questa e-mail: non riceverai nient’altro.",
    },
    successMessage: "Grazie: la tua candidatura ci è arrivata. Ti risponderemo via e-mail.",
  },
  pt: {
    title: "Candidatar-se",
    description: "Envie-nos o seu CV e responderemos por e-mail.",
    fields: {
      name: { label: "O seu nome", hint: "Tal como aparece no seu CV." },
      email: REPLY_EMAIL.pt,
      cv: { label: "O seu CV", hint: "O seu currículo, tal como o enviaria a qualquer empregador." },
      role: {
        label: "A função",
        hint: "Escolha a mais próxima.",
        options: { designer: "Design", developer: "Desenvolvimento", other: "Outra coisa" },
      },
      portfolio: { label: "Ligação para o seu portefólio", hint: "Uma página com o seu trabalho de design." },
    },
    steps: ["Sobre si", "O seu CV"],
    confirmation: {
      subject: "Recebemos a sua candidatura",
      text: "Obrigado pela sua candidatura. Ela e o seu CV chegaram até nós e responderemos por e-mail.\n\nSe não se candidatou, pode ignorar este e-mail: não receberá mais nada.",
    },
    successMessage: "Obrigado — a sua candidatura chegou até nós. Responderemos por e-mail.",
  },
  nl: {
    title: "Solliciteren",
    description: "Stuur ons uw cv en we antwoorden u per e-mail.",
    fields: {
      name: { label: "Uw naam", hint: "Zoals die op uw cv staat." },
      email: REPLY_EMAIL.nl,
      cv: { label: "Uw cv", hint: "Uw curriculum vitae, zoals u het aan elke werkgever zou sturen." },
      role: {
        label: "De functie",
        hint: "Kies de functie die het best past.",
        options: { designer: "Ontwerp", developer: "Ontwikkeling", other: "Iets anders" },
      },
      portfolio: { label: "Link naar uw portfolio", hint: "Een pagina met uw ontwerpwerk." },
    },
    steps: ["Over u", "Uw cv"],
    confirmation: {
      subject: "We hebben uw sollicitatie ontvangen",
      text: "Bedankt voor uw sollicitatie. Die en uw cv zijn bij ons aangekomen en we antwoorden u per e-mail.\n\nHebt u niet gesolliciteerd, dan kunt u deze e-mail negeren: u ontvangt verder niets.",
    },
    successMessage: "Bedankt — uw sollicitatie is bij ons aangekomen. We antwoorden u per e-mail.",
  },
  pl: {
    title: "Aplikuj",
    description: "Wyślij nam swoje CV, a odpowiemy e-mailem.",
    fields: {
      name: { label: "Imię i nazwisko", hint: "Tak jak w Twoim CV." },
      email: REPLY_EMAIL.pl,
      cv: { label: "Twoje CV", hint: "Twoje curriculum vitae, takie, jakie wysłałbyś(-łabyś) każdemu pracodawcy." },
      role: {
        label: "Stanowisko",
        hint: "Wybierz najbliższe.",
        options: { designer: "Projektowanie", developer: "Programowanie", other: "Coś innego" },
      },
      portfolio: { label: "Link do portfolio", hint: "Strona z Twoimi projektami." },
    },
    steps: ["O Tobie", "Twoje CV"],
    confirmation: {
      subject: "Otrzymaliśmy Twoją aplikację",
      text: "Dziękujemy za aplikację. Twoje zgłoszenie i CV do nas dotarły, a odpowiemy e-mailem.\n\nJeśli to nie Ty aplikowałeś(-aś), zignoruj tego e-maila: nic więcej nie wyślemy.",
    },
    successMessage: "Dziękujemy — Twoja aplikacja do nas dotarła. Odpowiemy e-mailem.",
  },
  ja: {
    title: "求人に応募する",
    description: "履歴書をお送りください。メールでご返信します。",
    fields: {
      name: { label: "お名前", hint: "履歴書に記載のとおりにご記入ください。" },
      email: REPLY_EMAIL.ja,
      cv: { label: "履歴書", hint: "どの企業にも送るような、ご自身の履歴書・職務経歴書。" },
      role: {
        label: "応募する職種",
        hint: "最も近いものを選んでください。",
        options: { designer: "デザイン", developer: "開発", other: "その他" },
      },
      portfolio: { label: "ポートフォリオのリンク", hint: "デザインの作品が見られるページ。" },
    },
    steps: ["あなたについて", "履歴書"],
    confirmation: {
      subject: "ご応募を受け付けました",
      text: "ご応募いただきありがとうございます。応募内容と履歴書は確かに届きました。メールでご返信します。\n\nお心当たりのない場合は、このメールを無視してください。今後メールが届くことはありません。",
    },
    successMessage: "ありがとうございます。ご応募は確かに届きました。メールでご返信します。",
  },
  ar: {
    title: "تقدّم لوظيفة",
    description: "أرسل إلينا سيرتك الذاتية وسنرد عليك عبر البريد الإلكتروني.",
    fields: {
      name: { label: "اسمك", hint: "كما يظهر في سيرتك الذاتية." },
      email: REPLY_EMAIL.ar,
      cv: { label: "سيرتك الذاتية", hint: "سيرتك الذاتية كما ترسلها إلى أي جهة توظيف." },
      role: { label: "الوظيفة", hint: "اختر الأقرب.", options: { designer: "التصميم", developer: "التطوير", other: "شيء آخر" } },
      portfolio: { label: "رابط أعمالك", hint: "صفحة تعرض أعمالك في التصميم." },
    },
    steps: ["عنك", "سيرتك الذاتية"],
    confirmation: {
      subject: "تلقّينا طلبك",
      text: "شكرًا لتقدّمك. وصلنا طلبك وسيرتك الذاتية وسنرد عليك عبر البريد الإلكتروني.\n\nإذا لم تتقدّم بطلب، يمكنك تجاهل هذه الرسالة: لن يُرسَل إليك أي شيء آخر.",
    },
    successMessage: "شكرًا لك — وصلنا طلبك. سنرد عليك عبر البريد الإلكتروني.",
  },
};
