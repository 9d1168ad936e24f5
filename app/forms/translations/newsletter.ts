import type { FormTranslation } from "~/forms/schema";
import type { Lang } from "~/lib/text/languages";

// The newsletter form's texts in every language Gatepost ships besides its own English.
export const NEWSLETTER_TRANSLATIONS: Readonly<Record<Exclude<Lang, "en">, FormTranslation>> = {
  de: {
    title: "Newsletter",
    description: "Einmal im Monat eine E-Mail mit allem Neuen. Abmelden mit einem Klick.",
    fields: {
      email: { label: "E-Mail-Adresse", hint: "Wir schicken eine E-Mail im Monat, sonst nichts." },
      consent: {
        label: "Ich möchte den monatlichen Newsletter erhalten",
        hint: "Sie können das jederzeit über den Link in jeder E-Mail widerrufen.",
      },
    },
    successMessage: "Danke — Sie stehen auf der Liste. Der nächste Newsletter erreicht Sie Anfang des Monats.",
  },
  fr: {
    title: "Lettre d’information",
    description: "Un e-mail par mois sur les nouveautés. Désinscription en un clic.",
    fields: {
      email: { label: "Adresse e-mail", hint: "Nous envoyons un e-mail par mois, rien d’autre." },
      consent: {
        label: "J’accepte de recevoir la lettre d’information mensuelle",
        hint: "Vous pouvez retirer votre accord à tout moment grâce au lien présent dans chaque e-mail.",
      },
    },
    successMessage: "Merci — vous êtes inscrit. La prochaine lettre vous parviendra en début de mois.",
  },
  es: {
    title: "Boletín",
    description: "Un correo al mes con las novedades. Date de baja con un clic.",
    fields: {
      email: { label: "Correo electrónico", hint: "Enviamos un correo al mes, nada más." },
      consent: {
        label: "Acepto recibir el boletín mensual",
        hint: "Puedes retirar tu consentimiento en cualquier momento con el enlace de cada correo.",
      },
    },
    successMessage: "Gracias: ya estás en la lista. El próximo boletín te llegará a principios de mes.",
  },
  it: {
    title: "Newsletter",
    description: "Una e-mail al mese con le novità. Disiscrizione con un clic.",
    fields: {
      email: { label: "Indirizzo e-mail", hint: "Inviamo una e-mail al mese, nient’altro." },
      consent: {
        label: "Accetto di ricevere la newsletter mensile",
        hint: "Puoi revocare il consenso in qualsiasi momento con il link presente in ogni e-mail.",
      },
    },
    successMessage: "Grazie: sei nella lista. La prossima newsletter ti arriverà all’inizio del mese.",
  },
  pt: {
    title: "Newsletter",
    description: "Um e-mail por mês com as novidades. Cancele a subscrição com um clique.",
    fields: {
      email: { label: "Endereço de e-mail", hint: "Enviamos um e-mail por mês, nada mais." },
      consent: {
        label: "Aceito receber a newsletter mensal",
        hint: "Pode retirar o consentimento a qualquer momento com a ligação presente em cada e-mail.",
      },
    },
    successMessage: "Obrigado — já está na lista. A próxima newsletter chega-lhe no início do mês.",
  },
  nl: {
    title: "Nieuwsbrief",
    description: "Eén e-mail per maand over wat er nieuw is. Afmelden met één klik.",
    fields: {
      email: { label: "E-mailadres", hint: "We sturen één e-mail per maand, verder niets." },
      consent: {
        label: "Ik wil de maandelijkse nieuwsbrief ontvangen",
        hint: "U kunt dit altijd intrekken via de link in elke e-mail.",
      },
    },
    successMessage: "Bedankt — u staat op de lijst. De volgende nieuwsbrief komt begin volgende maand.",
  },
  pl: {
    title: "Newsletter",
    description: "Jeden e-mail w miesiącu o nowościach. Wypisanie jednym kliknięciem.",
    fields: {
      email: { label: "Adres e-mail", hint: "Wysyłamy jeden e-mail w miesiącu, nic więcej." },
      consent: {
        label: "Zgadzam się na otrzymywanie comiesięcznego newslettera",
        hint: "Zgodę możesz wycofać w każdej chwili za pomocą linku w każdym e-mailu.",
      },
    },
    successMessage: "Dziękujemy — jesteś na liście. Następny newsletter dotrze do Ciebie na początku miesiąca.",
  },
  ja: {
    title: "ニュースレター",
    description: "新着情報を月に 1 回メールでお届けします。配信停止はワンクリックで。",
    fields: {
      email: { label: "メールアドレス", hint: "お送りするのは月 1 回のメールだけです。" },
      consent: {
        label: "月刊ニュースレターの受け取りに同意します",
        hint: "各メールのリンクから、いつでも同意を取り消せます。",
      },
    },
    successMessage: "ありがとうございます。登録が完了しました。次号は月初めにお届けします。",
  },
  ar: {
    title: "النشرة الإخبارية",
    description: "رسالة واحدة في الشهر عن كل جديد. يمكنك إلغاء الاشتراك بنقرة واحدة.",
    fields: {
      email: { label: "البريد الإلكتروني", hint: "نرسل رسالة واحدة في الشهر، لا أكثر." },
      consent: {
        label: "أوافق على تلقي النشرة الإخبارية الشهرية",
        hint: "يمكنك سحب موافقتك في أي وقت عبر الرابط الموجود في كل رسالة.",
      },
    },
    successMessage: "شكرًا لك — أصبحت في القائمة. ستصلك النشرة التالية في بداية الشهر.",
  },
};
