/**
 * Les mots du service en français : même forme que en.ts (`satisfies Messages`), écrits pour un
 * responsable conformité ou un comptable d’un metteur sur le marché (vouvoiement, termes des textes
 * et des éco-organismes). La typographie française (’, espaces insécables avant : ; ! ? et dans
 * les « guillemets ») est posée par le gabarit `fr` (../typography.ts) sur le texte littéral, et
 * sur toute la section `site` par `frenchWords`. Les termes sont ceux du glossaire
 * (reference-data/glossary.yaml) : filière, UVC, version, identifiant unique (IDU), éco-organisme,
 * niveau de déclaration, metteur sur le marché.
 */
import type { FieldParams, Names, Position, ProductFieldParams } from '../field-params.js';
import { dashboardPagesFr } from './dashboard-pages.fr.js';
import { operatorPagesFr } from './operator-pages.fr.js';
import { term } from '../glossary.js';
import { formatDate, formatDateTime, formatList, formatNumber, plural, unitSymbol } from '../format.js';
import { fr as t, frenchTypography } from '../typography.js';
import type { Messages } from './en.js';

/** Every string of `words` (functions' results too) set by `frenchTypography`. */
function frenchWords<T>(words: T): T {
  if (typeof words === 'string') return frenchTypography(words) as T;
  if (typeof words === 'function') return ((...args: unknown[]) => frenchWords((words as (...a: unknown[]) => unknown)(...args))) as T;
  if (Array.isArray(words)) return words.map((w: unknown) => frenchWords(w)) as T;
  if (words !== null && typeof words === 'object')
    return Object.fromEntries(Object.entries(words).map(([key, value]) => [key, frenchWords(value)])) as T;
  return words;
}

const n = (value: number | string) => formatNumber('fr', value);
const date = (iso: string) => formatDate('fr', iso);
/** `2026-S1` → « premier semestre 2026 ». */
const halfYear = (period: string) => `${period.endsWith('S1') ? 'premier' : 'second'} semestre ${period.slice(0, 4)}`;
const or = (items: readonly string[]) => formatList('fr', items, 'or');
const and = (items: readonly string[]) => formatList('fr', items, 'and');
const named = (names: Names | undefined, code?: string) => names?.fr ?? code ?? '';
const quoted = (items: readonly string[]) => items.map((item) => t`« ${item} »`);
/** Une filière telle qu’on la connaît : « Emballages ménagers (EMB) ». */
const streamOf = (p: { stream?: string; streamName?: Names }) => (p.streamName ? `${p.streamName.fr} (${p.stream})` : (p.stream ?? ''));
/** « la filière Emballages ménagers (EMB) », ou « cette filière » quand on ne sait pas laquelle. */
const theStream = (p: { stream?: string; streamName?: Names }) => (p.stream ? `la filière ${streamOf(p)}` : 'cette filière');
const times = (count: number, one: string, other: string) => `${n(count)} ${plural('fr', count, { one, other })}`;

/** Les unités permises, chacune avec ce qu’elle désigne (`help` des données des filières), pour dire laquelle écrire. */
const unitChoices = (units: readonly Names[]) => or(units.map((unit) => named(unit)));

/**
 * L’en-tête de chaque fichier CSV que le service écrit ou lit, colonne par colonne (`files.columns`,
 * par code de colonne) : les mots que les fichiers échangés portent déjà, à garder tels quels.
 */
const CSV_FILE_COLUMNS = {
  declaration: { stream: term('stream', 'fr'), material: 'matériau', unit: 'unité', quantity: 'quantité' },
  products: {
    reference: 'référence',
    name: 'désignation',
    stream: 'filière',
    // Le même mot qu’en anglais.
    gtin: 'gtin',
    valid_from: 'à partir de',
    material: 'matériau',
    weight_g: 'poids (g)',
    per_unit: 'nombre par UVC',
    packaging_category: 'catégorie d’emballage',
    reuse_status: 'statut de réemploi',
  },
  sales: { reference: 'référence', units: 'unités vendues' },
  clients: {
    client_id: 'identifiant client',
    company: 'raison sociale',
    email: 'e-mail',
    country: 'pays',
    plan: 'offre',
    streams: 'filières',
    idus: 'IDU',
    language: 'langue',
  },
  periodExport: {
    period: 'période',
    client_id: 'identifiant client',
    company: 'société',
    country: 'pays',
    idus: 'IDU',
    declaration_id: 'identifiant de déclaration',
    revision: 'révision',
    receipt: 'reçu',
    submitted_at: 'date de dépôt',
    stream: 'filière',
    material: 'matériau',
    material_category: 'catégorie de matériau',
    unit: 'unité',
    quantity: 'quantité',
    eco_organism: 'éco-organisme',
  },
  annualExport: {
    kind: 'type',
    year: 'année',
    eco_organism: 'éco-organisme',
    client_id: 'identifiant client',
    company: 'société',
    country: 'pays',
    idus: 'IDU',
    stream: 'filière',
    material: 'matériau',
    material_category: 'catégorie de matériau',
    unit: 'unité',
    quantity: 'quantité',
    s1_receipt: 'reçu S1',
    s2_receipt: 'reçu S2',
    missing_periods: 'semestres manquants',
    period: 'semestre',
  },
  productDetail: {
    product_reference: 'référence produit',
    product_name: 'désignation du produit',
    gtin: 'GTIN',
    product_valid_from: 'emballage applicable depuis',
    units: 'UVC vendues',
    weight_g: 'grammes par élément',
    per_unit: 'éléments par UVC',
    packaging_category: 'catégorie d’emballage',
    reuse_status: 'statut de réemploi',
  },
} satisfies Messages['files']['columns'];

/** Les colonnes d’un fichier de déclaration, telles que le modèle français les nomme. */
const CSV_COLUMNS: Record<string, string> = CSV_FILE_COLUMNS.declaration;
const column = (key: string) => (Object.hasOwn(CSV_COLUMNS, key) ? CSV_COLUMNS[key]! : key);

/** Les champs qu’une personne remplit, en mots (une clé absente d’ici n’est jamais montrée). */
const FIELD_NAMES: Record<string, string> = {
  period: term('half_year', 'fr'),
  lines: 'lignes',
  stream: term('stream', 'fr'),
  material: 'matériau',
  unit: 'unité',
  quantity: 'quantité',
  units_sold: 'unités vendues',
  file: 'fichier',
  name: 'nom',
  expires: 'date d’expiration',
  expires_at: 'date d’expiration',
  email: 'adresse électronique',
  company: 'raison sociale',
  country: 'pays',
  plan: 'offre',
  streams: 'filières',
  idus: 'identifiants uniques (IDU)',
  client_id: 'identifiant client',
};
const fieldName = (key: string | undefined) => (key !== undefined && Object.hasOwn(FIELD_NAMES, key) ? FIELD_NAMES[key] : undefined);
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

type F<K extends keyof FieldParams> = (p: FieldParams[K]) => string;

/** Les messages d’un envoi de produits ou de ventes (src/products/) : dans `fields` avec tous les codes. */
const productFields = {
  no_products: () =>
    t`Le fichier ou l'envoi ne contient aucun produit ni aucune vente. Ajoutez au moins une ligne, par exemple BTL-75, Vin rouge 75 cl, EMB, 2026-S1, verre, ${n('410.5')}.`,
  too_many_products: (p) =>
    t`Envoyez au plus ${n(p.max ?? 1000)} éléments à la fois${p.count === undefined ? '' : t` (et non ${n(p.count)})`} : découpez le fichier en deux.`,
  duplicate_reference: (p) =>
    t`${p.value ?? 'Cette référence'} figure deux fois${p.other === undefined ? '' : t` (d'abord en position ${n(p.other)})`}. Indiquez chaque produit, avec son semestre d'application, une seule fois.`,
  invalid_text: (p) =>
    p.reason === 'too_long'
      ? t`Ce texte est trop long : ${n(p.max ?? 64)} caractères au plus. Raccourcissez-le, par exemple BTL-75-ROUGE.`
      : p.reason === 'characters'
        ? t`Ce texte contient des caractères invisibles ou de contrôle. Saisissez-le à nouveau plutôt que de le coller.`
        : t`Cette information est obligatoire : renseignez-la, par exemple BTL-75-ROUGE.`,
  invalid_gtin: (p) =>
    p.reason === 'check_digit'
      ? t`Le dernier chiffre de ${p.value ?? 'ce GTIN'} ne correspond pas aux autres : recopiez le numéro inscrit sous le code-barres.`
      : t`Un GTIN (code EAN) compte 8, 12, 13 ou 14 chiffres, sans espace, par exemple 3017620422003. Laissez la case vide si le produit n'en a pas.`,
  no_elements: () =>
    t`Indiquez au moins un élément d'emballage pour ce produit : son matériau, le poids d'un élément en grammes et leur nombre par UVC.`,
  too_many_elements: (p) =>
    t`Un produit compte au plus ${n(p.max ?? 20)} éléments d'emballage. Regroupez les éléments identiques en indiquant leur nombre par UVC.`,
  catalogue_full: (p) =>
    t`Un catalogue compte au plus ${n(p.max ?? 10000)} produits${p.count === undefined ? '' : t` ; le vôtre en compte ${n(p.count)}`}${p.added === undefined ? '' : t` et cet envoi en ajouterait ${n(p.added)}`}. Au-delà, déclarez directement vos quantités par matériau plutôt qu'à partir du catalogue.`,
  too_many_versions: (p) =>
    t`${p.value ?? 'Ce produit'} aurait plus de ${n(p.max ?? 20)} versions. Corrigez plutôt une version existante en l'envoyant de nouveau avec le même semestre d'application.`,
  unknown_material: (p) =>
    t`${p.value === undefined ? 'Ce matériau' : t`« ${p.value} »`} ne fait pas partie des matériaux du barème de ${p.stream ?? 'cette filière'}. Choisissez l'un des matériaux publiés${p.allowed ? t` : ${or(quoted(p.allowed.map((name) => named(name))))}` : ''}.`,
  invalid_weight: (p) =>
    p.reason === 'not_positive'
      ? t`Le poids d'un élément doit être supérieur à 0 gramme, par exemple ${n('410.5')}.`
      : p.reason === 'too_large'
        ? t`Le poids d'un élément est d'au plus ${n(p.max ?? 10000000)} grammes. Indiquez-le en grammes, et non en kilogrammes.`
        : p.reason === 'too_small'
          ? t`Le poids d'un élément est d'au moins ${n(p.min ?? 0.001)} gramme (un milligramme). Indiquez-le en grammes, par exemple ${n('2.125')}.`
          : t`Indiquez le poids d'un élément en grammes, en chiffres, par exemple ${n('410.5')}.`,
  weight_too_precise: (p) =>
    t`Un poids compte au plus ${n(p.decimals ?? 3)} décimales (au milligramme près), par exemple ${n('2.125')} grammes. Arrondissez-le.`,
  invalid_count: (p) =>
    t`Indiquez un nombre entier de ${n(p.min ?? 0)} à ${n(p.max ?? 1e12)}, sans décimale ni espace, par exemple ${n(48000)}.`,
  not_applicable: (p) =>
    t`${p.stream ?? 'Cette filière'} ne publie ni catégorie d'emballage ni statut de réemploi : laissez cette case vide.`,
  unknown_packaging_category: (p) =>
    t`Choisissez la catégorie d'emballage parmi celles publiées${p.allowed ? t` : ${or(p.allowed)}` : ''}.`,
  unknown_reuse_status: (p) => t`Choisissez le statut de réemploi parmi ceux publiés${p.allowed ? t` : ${or(p.allowed)}` : ''}.`,
  inconsistent_product: (p) =>
    t`Toutes les lignes d'un même produit reprennent la même désignation, la même filière et le même GTIN${p.first === undefined ? '' : t` que la ligne ${n(p.first)}`}. Corrigez cette ligne, ou donnez-lui une autre référence ou un autre semestre d'application.`,
  product_version_filed: (p) =>
    t`L'emballage de ${p.value ?? 'ce produit'} applicable à partir de ${p.period ?? 'ce semestre'} a servi à une déclaration déjà déposée et ne peut plus changer. Envoyez le nouvel emballage avec le semestre à partir duquel il s'applique.`,
  unknown_product: (p) =>
    t`${p.value ?? 'Cette référence'} ne figure pas dans votre catalogue de produits. Ajoutez d'abord le produit, puis ses ventes.`,
  no_version_for_period: (p) =>
    t`${p.value ?? 'Ce produit'} n'a pas d'emballage applicable en ${p.period ?? 'ce semestre'} : son emballage ne s'applique qu'à partir d'un semestre ultérieur. Envoyez son emballage à partir de ${p.period ?? 'ce semestre'} ou d'un semestre antérieur.`,
  nothing_to_derive: (p) =>
    t`Aucune vente n'est enregistrée pour ${p.period ?? 'ce semestre'} : envoyez d'abord le nombre d'UVC vendues par produit.`,
  product_missing: () =>
    t`Aucun produit n'est indiqué sur cette ligne ni au-dessus : écrivez le nom ou la référence du produit sur sa première ligne.`,
  units_missing: () =>
    t`Les UVC vendues du produit sur le semestre manquent : indiquez-les sur sa première ligne, par exemple ${n(40000)}.`,
  inconsistent_units: (p) =>
    t`Les UVC vendues diffèrent de celles ${p.first === undefined ? t`d'une autre ligne` : t`de la ligne ${n(p.first)}`} du même produit : indiquez-les une seule fois, ou les mêmes sur chaque ligne.`,
} satisfies { [K in keyof ProductFieldParams]: (p: ProductFieldParams[K]) => string };

export const fr = {
  language: {
    versionHint: 'version française de cette page',
  },

  common: {
    fieldNames: FIELD_NAMES,
    position: (p: Position): string | undefined => {
      if (p.row !== undefined)
        return p.field !== undefined && Object.hasOwn(CSV_COLUMNS, p.field)
          ? `Ligne ${p.row} du fichier, colonne ${CSV_COLUMNS[p.field]}`
          : `Ligne ${p.row} du fichier`;
      const name = fieldName(p.field);
      if (p.line !== undefined) return name && p.field !== 'lines' ? `Ligne ${p.line}, ${name}` : `Ligne ${p.line}`;
      return name ? capital(name) : undefined;
    },
    halfYear: (year: number, half: 1 | 2) => `${half === 1 ? '1er' : '2e'} semestre ${year}`,
    unknownProblem: t`Cette information est à corriger : vérifiez-la et envoyez-la de nouveau.`,
    yes: 'oui',
    no: 'non',
  },

  problems: {
    bad_request: {
      title: t`La demande n'a pas pu être lue`,
      explanation: t`Un élément de l'adresse ou du formulaire n'a pas pu être lu. Revenez en arrière, vérifiez votre saisie et réessayez.`,
    },
    malformed_json: {
      title: 'Les données envoyées sont illisibles',
      explanation: t`Les données envoyées ne sont pas au format attendu. Si vous avez utilisé un formulaire de ce site, rechargez la page et réessayez ; si elles viennent de l'un de vos logiciels, demandez à ses développeurs de vérifier la requête.`,
    },
    invalid_cursor: {
      title: t`Cette page de résultats n'existe plus`,
      explanation: t`Le lien vers la page suivante de résultats n'est plus valable. Revenez à la première page de la liste.`,
    },
    missing_token: {
      title: t`Jeton d'API manquant`,
      explanation: t`Cette adresse demande un jeton d'API. Vos logiciels l'envoient avec chaque requête ; créez-en un dans le tableau de bord, rubrique Jetons d'API.`,
    },
    invalid_token: {
      title: t`Ce jeton d'API ne fonctionne pas`,
      explanation: t`Le jeton est inconnu, expiré ou révoqué, ou n'a pas été copié en entier. Créez-en un nouveau dans le tableau de bord, rubrique Jetons d'API, et remplacez l'ancien dans votre logiciel.`,
    },
    insufficient_scope: {
      title: 'Accès non autorisé',
      explanation: t`Votre accès n'ouvre pas cette page : elle est réservée à l'opérateur du service. Revenez à votre tableau de bord.`,
    },
    admin_api_disabled: {
      title: t`Espace de l'opérateur désactivé`,
      explanation: t`L'espace de l'opérateur est désactivé sur cette installation. Si vous exploitez le service, renseignez ADMIN_TOKEN pour l'activer.`,
    },
    account_suspended: {
      title: 'Votre compte est suspendu',
      explanation: t`L'opérateur a suspendu votre compte : vos jetons d'API et vos sessions du tableau de bord ne fonctionnent plus pour le moment, et vos déclarations sont conservées. Contactez l'opérateur pour le faire réactiver.`,
    },
    session_required: {
      title: 'Veuillez vous connecter',
      explanation: t`Votre session a pris fin : déconnexion, 30 minutes sans activité ou 12 heures écoulées depuis la connexion. Reconnectez-vous avec un nouveau lien.`,
    },
    csrf_failed: {
      title: 'Le formulaire a expiré',
      explanation: t`Le formulaire est resté ouvert trop longtemps, ou a été envoyé depuis un autre site. Rechargez la page, remplissez de nouveau le formulaire et envoyez-le.`,
    },
    not_found: {
      title: 'Page introuvable',
      explanation: t`Il n'y a rien à cette adresse, ou elle concerne un autre compte. Vérifiez l'adresse, ou revenez à votre tableau de bord.`,
    },
    method_not_allowed: {
      title: 'Action impossible ici',
      explanation: t`Cette page n'accepte pas ce type de demande. Revenez en arrière et utilisez les boutons et les liens de la page.`,
    },
    conflict: {
      title: t`L'enregistrement a changé`,
      explanation: t`Cet enregistrement a été modifié entre-temps. Rechargez la page pour le voir tel qu'il est, puis réessayez.`,
    },
    precondition_failed: {
      title: t`L'enregistrement a changé depuis votre lecture`,
      explanation: t`Quelqu'un a modifié cet enregistrement après que vous l'avez ouvert ; rien n'a été modifié. Rechargez-le, vérifiez son contenu actuel, puis refaites votre modification.`,
    },
    idempotency_key_in_flight: {
      title: t`Votre déclaration est en cours d'enregistrement`,
      explanation: t`La même déclaration est encore en cours d'enregistrement. Patientez quelques secondes, puis consultez la liste de vos déclarations avant de la renvoyer.`,
    },
    payload_too_large: {
      title: 'Le fichier est trop volumineux',
      explanation: t`L'envoi dépasse 1 Mio. Une déclaration compte au plus ${n(1000)} lignes : regroupez les lignes par catégorie de matériau, ou supprimez les lignes et colonnes vides du fichier, puis renvoyez-le.`,
    },
    unsupported_media_type: {
      title: t`Ce type de fichier n'est pas accepté`,
      explanation: t`Envoyez la déclaration au format CSV : dans Excel ou LibreOffice, choisissez Enregistrer sous, puis CSV (séparateur : point-virgule) ou CSV UTF-8.`,
    },
    validation_failed: {
      title: 'Des informations sont à corriger',
      explanation: t`Rien n'a été enregistré. Corrigez chacun des points signalés, puis envoyez de nouveau.`,
    },
    idempotency_key_reused: {
      title: t`Identifiant d'envoi déjà utilisé pour d'autres chiffres`,
      explanation: t`Votre logiciel a réutilisé l'identifiant d'un envoi précédent (Idempotency-Key) pour des chiffres différents. Rien n'a été enregistré : le logiciel doit envoyer un nouvel identifiant avec chaque nouvelle déclaration.`,
    },
    rate_limited: {
      title: 'Trop de demandes',
      explanation: 'Trop de demandes ont été faites en peu de temps. Patientez une minute, puis réessayez.',
    },
    internal_error: {
      title: 'Une erreur est survenue de notre côté',
      explanation: t`Le service a rencontré une erreur inattendue, qui ne vient pas de vous. Réessayez dans quelques minutes ; si elle se reproduit, écrivez-nous en indiquant la référence de cette page.`,
    },
    service_unavailable: {
      title: 'Service momentanément indisponible',
      explanation: t`Le service ne peut pas répondre pour l'instant, et rien n'a été enregistré. Réessayez dans une minute.`,
    },
  },

  fields: {
    unknown_field: () =>
      t`Le service n'attend pas cette information. Retirez-la et n'envoyez que ce que demande le formulaire ou la documentation, par exemple le semestre et ses lignes pour une déclaration.`,
    required: ((p) => {
      switch (p.field) {
        case 'period':
          return 'Indiquez le semestre déclaré, par exemple 2026-S1 (janvier à juin) ou 2026-S2 (juillet à décembre).';
        case 'lines':
          return t`Ajoutez au moins une ligne : filière, matériau, unité et quantité, par exemple EMB, Verre, kg, ${n('1200.5')}.`;
        case 'stream':
          return 'Choisissez la filière de cette ligne, par exemple EMB pour les emballages ménagers.';
        case 'material':
          return 'Indiquez le matériau de cette ligne, par exemple Verre ou Papier-carton.';
        case 'unit':
          return p.units?.length ? t`Choisissez l'unité de cette ligne : ${unitChoices(p.units)}.` : t`Choisissez l'unité de cette ligne.`;
        case 'quantity':
          return `Indiquez la quantité en chiffres, par exemple ${n('1200.5')}.`;
        default:
          return t`Cette information est obligatoire : renseignez-la.`;
      }
    }) satisfies F<'required'>,
    invalid_type: ((p) => {
      switch (p.field) {
        case 'period':
          return 'Écrivez le semestre sous forme de texte, par exemple 2026-S1.';
        case 'lines':
          return 'Indiquez les lignes sous forme de liste, avec une entrée par filière, matériau et unité.';
        case 'stream':
          return 'Écrivez la filière avec son code, par exemple EMB.';
        case 'material':
          return 'Écrivez le matériau en toutes lettres, par exemple Verre.';
        case 'unit':
          return p.units?.length ? t`Écrivez l'unité : ${unitChoices(p.units)}.` : t`Écrivez l'unité en toutes lettres, par exemple kg.`;
        default:
          if (p.line !== undefined)
            return `Chaque ligne indique une filière, un matériau, une unité et une quantité, par exemple EMB, Verre, kg, ${n('1200.5')}.`;
          if (p.field === undefined) return t`Envoyez une déclaration : un semestre et ses lignes, comme le montre la documentation.`;
          return t`Cette valeur n'est pas du type attendu : écrivez-la comme l'indique le formulaire ou la documentation.`;
      }
    }) satisfies F<'invalid_type'>,
    invalid_characters: () =>
      t`Ce texte contient des caractères invisibles ou de contrôle (un saut de ligne, par exemple), qui ne peuvent pas être enregistrés. Saisissez-le de nouveau plutôt que de le coller, par exemple Verre.`,
    too_deep: (p) =>
      t`Les données sont imbriquées sur plus de ${p.max ?? 32} niveaux. Envoyez-les comme le montre la documentation, par exemple une déclaration avec son semestre et la liste de ses lignes.`,
    more_errors: (p) => {
      const count = p.count ?? 1;
      return `${plural('fr', count, { one: t`${n(count)} autre problème n'est pas listé`, other: `${n(count)} autres problèmes ne sont pas listés` })} ici. Corrigez ceux qui précèdent, puis envoyez de nouveau pour voir les suivants.`;
    },
    invalid_string: () => t`Cette valeur doit être un texte : écrivez-la en lettres ou en chiffres, par exemple Exemple SAS.`,
    not_blank: ((p) => {
      switch (p.field) {
        case 'name':
          return t`Donnez un nom au jeton, par exemple ERP production (le logiciel qui l'utilisera).`;
        case 'company':
          return t`Indiquez la raison sociale de l'entreprise, par exemple Exemple SAS.`;
        case 'idus':
          return t`Indiquez l'identifiant unique (IDU), par exemple FR000000_01ABCD, ou retirez l'entrée vide.`;
        default:
          return t`Ce champ ne peut pas rester vide : remplissez-le.`;
      }
    }) satisfies F<'not_blank'>,
    not_trimmed: () => t`Retirez les espaces au début et à la fin de l'identifiant unique (IDU), par exemple FR000000_01ABCD.`,
    max_length: (p) =>
      p.max === undefined
        ? t`Ce texte est trop long : raccourcissez-le.`
        : t`Ce texte est trop long : raccourcissez-le à ${times(p.max, 'caractère', 'caractères')} au plus.`,
    invalid_length: (p) =>
      p.min !== undefined
        ? `Écrivez au moins ${times(p.min, 'caractère', 'caractères')}.`
        : p.max === undefined
          ? t`Ce texte est trop long : raccourcissez-le.`
          : t`Ce texte est trop long : raccourcissez-le à ${times(p.max, 'caractère', 'caractères')} au plus.`,
    invalid_email: () => 'Saisissez une adresse électronique valide, par exemple nom@exemple.fr.',
    email_characters: () =>
      t`Saisissez de nouveau l'adresse électronique en lettres latines sans accent, chiffres, points, tirets, tirets bas et signes plus avant le @, par exemple nom@exemple.fr : elle contient une lettre d'un autre alphabet qui ressemble à une lettre latine, un caractère pleine chasse ou un domaine qui mélange les alphabets, ce qui enverrait le courrier à une autre boîte que celle qu'on lit.`,
    invalid_array: () => t`Indiquez ici une liste, même d'un seul élément, par exemple la filière EMB.`,
    array_max_size: (p) =>
      p.max === undefined
        ? t`La liste est trop longue : raccourcissez-la.`
        : t`La liste est trop longue : gardez-en ${times(p.max, 'élément', 'éléments')} au plus.`,
    matches: () =>
      t`Écrivez l'identifiant client avec 3 à 63 lettres minuscules, chiffres, tirets ou tirets bas, en commençant par une lettre ou un chiffre, par exemple exemple-sas.`,
    invalid_date_time: () => 'Indiquez une date et une heure avec leur fuseau horaire, par exemple 2027-01-31T00:00:00Z.',
    expiry_out_of_range: (p) => t`Choisissez une date d'expiration à venir, au plus ${times(p.max ?? 2, 'an', 'ans')} après aujourd'hui.`,
    limit_out_of_range: (p) => `Demandez de ${n(p.min ?? 1)} à ${n(p.max ?? 100)} résultats par page, par exemple 20.`,
    invalid_status: () => 'Choisissez current (versions en vigueur) ou superseded (versions remplacées).',
    invalid_mode: () =>
      'Choisissez live (un jeton pour vos déclarations réelles) ou test (un jeton pour votre environnement de test, dont les déclarations ne sont jamais transmises).',
    invalid_client_id: () => t`Écrivez un identifiant client tel que l'opérateur l'a donné, par exemple exemple-sas.`,
    invalid_actor: () => t`Écrivez admin, ou l'identifiant d'un jeton d'opérateur, par exemple 0f8fad5b-d9cb-469f-a165-70867728950e.`,
    invalid_action: () => t`Écrivez une action telle que le journal d'audit la nomme, par exemple client.updated.`,
    invalid_stream: () => t`Écrivez le code d'une filière, par exemple EMB.`,
    invalid_plan: () => t`Écrivez l'identifiant d'une offre, par exemple business.`,
    invalid_boolean: () => 'Écrivez true (oui) ou false (non).',
    invalid_country_code: () => 'Écrivez le pays avec son code ISO à deux lettres majuscules, par exemple FR pour la France.',
    invalid_language_code: () => 'Écrivez fr pour le français ou en pour l’anglais.',
    duplicate: (p) =>
      p.value === undefined
        ? t`Cette valeur figure plusieurs fois : ne la gardez qu'une fois.`
        : t`« ${p.value} » figure plusieurs fois : ne le gardez qu'une fois.`,
    no_clients: () => t`Le fichier a une ligne d'en-tête mais aucun client. Ajoutez une ligne par client sous l'en-tête.`,
    too_many_clients: (p) =>
      t`Un fichier inscrit au plus ${n(p.max ?? 1000)} clients : les lignes à partir de celle-ci ne sont pas lues. Scindez le fichier en deux et envoyez chaque partie.`,
    duplicate_client: (p) =>
      t`Ce client figure déjà à la ligne ${p.other === undefined ? 'précédente' : n(p.other)} du fichier (même identifiant, ou même raison sociale et même adresse e-mail). Ne gardez qu'une des deux lignes.`,
    period_not_ended: (p) =>
      t`${p.period ? `Le semestre ${p.period}` : 'Ce semestre'} n'est pas encore terminé${p.end ? ` (il se termine le ${date(p.end)})` : ''} : rien n'en est encore dû. Choisissez un semestre terminé.`,
    client_exists: (p) =>
      t`${p.value ? t`Le client « ${p.value} »` : 'Un client'} existe déjà avec cet identifiant, ou avec cette raison sociale et cette adresse e-mail. Retirez la ligne, ou modifiez plutôt le client existant.`,
    unknown_plan: (p) =>
      `${p.value === undefined ? t`Ce n'est pas` : t`« ${p.value} » n'est pas`} une offre du service. ${p.plans?.length ? `Choisissez ${or(p.plans)}.` : t`Choisissez l'une des offres de la page Tarifs, par exemple business.`}`,
    not_in_plan: (p) =>
      t`${p.plan ? `L’offre ${p.plan}` : 'Cette offre'} ne couvre pas ${theStream(p)}${p.covered?.length ? ` (elle couvre ${and(p.covered)})` : ''}. Choisissez une offre qui la couvre, ou retirez la filière.`,
    invalid_idempotency_key: () =>
      t`L'identifiant d'envoi (Idempotency-Key) doit compter de 1 à 255 caractères visibles : prenez un nouvel identifiant unique, par exemple 0f8fad5b-d9cb-469f-a165-70867728950e.`,
    idempotency_key_reused: () =>
      t`Cet identifiant d'envoi (Idempotency-Key) a déjà servi pour d'autres chiffres dans les dernières 24 heures. Envoyez les nouveaux chiffres avec un nouvel identifiant.`,

    invalid_client_status: () => 'Choisissez active (actif), suspended (suspendu) ou offboarded (sorti du service).',
    invalid_csv_dialect: () =>
      t`Choisissez fr (point-virgule entre les cellules, virgule décimale) ou en (virgule entre les cellules, point décimal).`,
    invalid_export_detail: (p) =>
      t`Omettez le détail pour obtenir l'export habituel, ou choisissez ${p.listed?.length ? or(p.listed) : 'products'} pour y ajouter les produits de chaque déclaration calculée à partir d'un catalogue.`,
    link_lifetime_out_of_range: (p) =>
      t`Indiquez combien de minutes le lien reste valable : un nombre entier de ${n(p.min ?? 1)} à ${n(p.max ?? 10080)} (7 jours), par exemple ${n(2880)} pour 2 jours.`,
    unknown_eco_organism: (p) =>
      `${p.value === undefined ? t`Ce n'est pas` : t`« ${p.value} » n'est pas`} ${t`un éco-organisme que les données publiées mentionnent pour ${p.stream ? `la filière ${p.stream}` : 'cette filière'}${p.period ? ` au semestre ${p.period}` : ''}.`} ${p.listed?.length ? t`Choisissez ${or(p.listed)}.` : t`Aucun n'y figure : laissez l'éco-organisme vide.`}`,

    account_not_confirmed: () =>
      t`Votre compte n'est pas encore confirmé : l'opérateur doit valider les informations de votre entreprise avant tout dépôt. Rien n'a été enregistré ; déposez de nouveau votre déclaration une fois la confirmation reçue.`,
    invalid_period_format: (p) =>
      `${p.value === undefined ? '' : t`« ${p.value} » n'est pas un semestre. `}${t`Écrivez l'année, un tiret, puis S1 (janvier à juin) ou S2 (juillet à décembre), par exemple 2026-S1.`}`,
    period_too_early: (p) =>
      p.earliest
        ? `Le service accepte les déclarations à partir du semestre ${p.earliest}. Choisissez ${p.earliest} ou un semestre ultérieur.`
        : 'Le service n’accepte pas les déclarations pour un semestre aussi ancien. Choisissez un semestre plus récent.',
    period_not_started: (p) =>
      t`Le semestre ${p.period ?? ''} n'a pas encore commencé${p.start ? t` : il s'ouvre le ${date(p.start)}` : ''}. Déclarez-le une fois commencé, ou choisissez un semestre déjà ouvert${p.current ? `, par exemple ${p.current}` : ''}.`,
    too_few_lines: (p) =>
      `${t`La déclaration ne comporte aucune ligne.`}${p.comments ? ` ${p.comments === 1 ? t`La ligne du fichier qui commence par # (remarque ou exemple du modèle) n'est jamais lue` : t`Les ${n(p.comments)} lignes du fichier qui commencent par # (remarques et exemples du modèle) ne sont jamais lues`}${t` : retirez le # des exemples que vous gardez, ou écrivez vos lignes sous l'en-tête.`}` : ''} ${t`Ajoutez-en au moins une : filière, matériau, unité et quantité, par exemple EMB, Verre, kg, ${n('1200.5')}.`}`,
    too_many_lines: (p) =>
      `${p.count !== undefined ? t`La déclaration compte ${n(p.count)} lignes, pour ${n(p.max ?? 1000)} au plus.` : t`Une déclaration compte au plus ${n(p.max ?? 1000)} lignes : les lignes du fichier ne sont plus lues à partir de celle-ci.`} ${t`Regroupez les matériaux proches sous leur catégorie du barème de l'éco-organisme, par exemple toutes les bouteilles et tous les pots en verre sous Verre.`}`,
    unknown_stream: (p) =>
      `${p.value === undefined ? t`Ce n'est pas` : t`« ${p.value} » n'est pas`} une filière du service. ${p.streams?.length ? t`Écrivez le code de l'une des filières : ${or(p.streams)}.` : t`Écrivez le code d'une filière, par exemple EMB.`}`,
    stream_not_registered: (p) =>
      `${t`Votre compte n'est pas inscrit pour ${theStream(p)}.`} ${p.registered?.length ? t`Ne déclarez que vos filières (${and(p.registered)}) ; pour en ajouter une, adressez-vous à l'opérateur.` : t`Votre compte n'a encore aucune filière : demandez à l'opérateur d'ajouter celles que vous déclarez.`}`,
    stream_not_declarable_for_period: (p) =>
      p.from
        ? t`${capital(theStream(p))} se déclare à partir du ${date(p.from)} : ${p.period ? `le semestre ${p.period}` : 'ce semestre'} se termine avant cette date. Choisissez un semestre ultérieur, ou une autre filière.`
        : t`${capital(theStream(p))} ne se déclare pas encore pour ce semestre. Choisissez un semestre ultérieur, ou une autre filière.`,
    stream_ended: (p) =>
      `${p.until ? t`${capital(theStream(p))} ne se déclare plus après le ${date(p.until)} : ${p.period ? `le semestre ${p.period}` : 'ce semestre'} commence après cette date.` : `${capital(theStream(p))} ne se déclare plus pour ce semestre.`} ${p.replacedBy ? `Déclarez ${p.period ?? 'ce semestre'} sous la filière ${p.replacedBy}.` : 'Choisissez un semestre antérieur.'}`,
    material_retired: (p) =>
      `${p.material ? t`La catégorie « ${named(p.material)} »` : 'Cette catégorie'} ${t`n'est plus utilisée pour ${theStream(p)}`}${p.version !== undefined ? ` depuis la version ${p.version} des données de référence` : ''}. ${p.replacedBy?.length ? `Déclarez-la sous ${or(quoted(p.replacedBy.map((name) => named(name))))}.` : 'Choisissez une catégorie actuelle de la filière, ou décrivez le matériau avec vos propres mots.'}`,
    invalid_material: ((p) => {
      switch (p.reason) {
        case 'too_long':
          return t`Le matériau compte ${times(p.length ?? 0, 'caractère', 'caractères')} : écrivez-le en ${n(p.max ?? 120)} au plus, par exemple Verre ou Barquettes en PET.`;
        case 'characters':
          return t`Écrivez le matériau sur une seule ligne, sans caractère invisible : saisissez-le de nouveau plutôt que de le coller, par exemple Verre.`;
        default:
          return 'Indiquez le matériau de cette ligne, par exemple Verre.';
      }
    }) satisfies F<'invalid_material'>,
    unit_not_allowed: (p) =>
      `${p.value === undefined ? t`Cette unité n'est pas acceptée` : t`« ${p.value} » n'est pas une unité acceptée`}${p.stream ? ` pour la filière ${p.stream}` : ''}.${p.units?.length ? ` Écrivez ${unitChoices(p.units)}.` : p.allowed?.length ? ` Écrivez ${or(quoted(p.allowed))}.` : ''}`,
    quantity_not_a_number: (p) =>
      p.value === undefined
        ? `Écrivez la quantité en chiffres, par exemple ${n('1200.5')}.`
        : `${t`« ${p.value} » n'est pas un nombre. Écrivez la quantité en chiffres seulement, sans unité ni séparateur de milliers, par exemple`} ${p.delimiter === ';' ? '1200,5.' : t`1200.5 : dans un fichier séparé par des virgules, une virgule décimale couperait la cellule en deux.`}`,
    quantity_negative: () =>
      t`La quantité ne peut pas être négative. Indiquez la quantité mise sur le marché, par exemple ${n('1200.5')} ; pour corriger une déclaration, déposez-la de nouveau avec les bons chiffres.`,
    quantity_too_large: (p) =>
      t`La quantité dépasse ${n(p.max ?? 1e12)}. Vérifiez l'unité : une masse s'indique en kilogrammes, par exemple ${n(1200)} pour 1,2 tonne.`,
    quantity_too_precise: (p) => {
      const unit = p.unit ? `en ${p.unit}` : 'dans cette unité';
      if (p.decimals === 0) return t`Une quantité ${unit} est un nombre d'unités : écrivez un nombre entier, par exemple ${n(4800)}.`;
      const decimals = p.decimals ?? 3;
      return `Une quantité ${unit} a au plus ${times(decimals, 'décimale', 'décimales')}${p.unit === 'kg' && decimals === 3 ? ' (au gramme près)' : ''}, par exemple ${n(`1200.${'125'.padEnd(decimals, '0').slice(0, decimals)}`)}.`;
    },
    duplicate_line: (p) => {
      const list = p.rows ?? p.lines ?? [];
      const count = list.length + (p.more ?? 0);
      const where =
        list.length === 0
          ? 'd’une autre ligne'
          : `${plural('fr', count, { one: 'de la ligne', other: 'des lignes' })} ${and([...list.map((i) => n(i)), ...(p.more ? [times(p.more, 'autre', 'autres')] : [])])}${p.rows ? ' du fichier' : ''}`;
      return t`Cette ligne reprend la filière, le matériau et l'unité ${where}. Additionnez leurs quantités sur une seule ligne, par exemple ${n('1200.5')} plutôt que ${n(1000)} et ${n('200.5')}.`;
    },
    companion_line_missing: (p) =>
      t`Pour ${theStream(p)}, chaque matériau se déclare à la fois en ${unitSymbol('fr', p.unit ?? 'kg')} et en ${unitSymbol('fr', p.requires ?? 'uvc')}. Ajoutez pour ${p.material ? t`« ${p.material} »` : 'ce matériau'} une ligne en ${unitSymbol('fr', p.requires ?? 'uvc')} : ${p.requires === 'uvc' || p.requires === undefined ? `le nombre d’unités de vente consommateur (UVC) mises sur le marché, par exemple ${n(4800)}` : `par exemple ${n(4800)}`}.`,
    too_many_units_sold: (p) =>
      t`Les unités vendues s'indiquent une fois par filière : ${n(p.max ?? 20)} au plus${p.count === undefined ? '' : t`, et non ${n(p.count)}`}.`,
    units_sold_not_counted: (p) =>
      t`${capital(theStream(p))} se déclare en kilogrammes seulement : elle n'a pas d'unités vendues à indiquer. Retirez-les, ou indiquez-les pour les emballages ménagers (EMB).`,
    duplicate_units_sold: (p) =>
      t`Les unités vendues de ${p.stream ?? 'cette filière'} sont déjà indiquées${p.other === undefined ? '' : t` (en position ${n(p.other)})`}. Indiquez-les une seule fois : le nombre total d'unités de vente consommateur (UVC) du semestre, par exemple ${n(90000)}.`,
    units_sold_without_lines: (p) =>
      t`La déclaration n'a aucune ligne pour ${theStream(p)}. Indiquez ses unités vendues avec ses lignes (matériaux en kg et en UVC), ou retirez-les.`,
    units_sold_below_material_count: (p) =>
      t`${p.value === undefined ? 'Ces unités vendues' : `${n(p.value)} unités vendues`}, c'est moins que ${p.count === undefined ? 'les UVC d’un matériau' : t`les ${n(p.count)} UVC`}${p.material ? t` dont l'emballage comporte « ${p.material} »` : ''}. Les UVC d'un matériau sont une partie des unités vendues, jamais davantage : indiquez toutes les unités vendues sur le semestre, chacune une seule fois, ou corrigez la ligne du matériau.`,

    material_uncategorised: (p) =>
      t`${p.value ? t`« ${p.value} »` : 'Ce matériau'} n’est pas une catégorie de matériau de ${theStream(p)} : il est enregistré tel quel, mais il ne correspondra à aucune ligne de la grille de l’éco-organisme. Si l’une convient, choisissez plutôt une catégorie publiée dans la liste, par exemple ${p.allowed?.length ? t`« ${named(p.allowed[0])} »` : t`« Verre »`} ; sinon, conservez-le.`,
    quantity_maybe_tonnes: (p) =>
      t`${p.value !== undefined ? `${n(p.value)} kg` : 'Cette masse'}${p.count !== undefined ? ` pour ${n(p.count)} UVC` : ''} font ${p.grams !== undefined ? `${n(Number(p.grams.toPrecision(2)))} g` : 'moins de 0,1 g'} par unité : ce chiffre serait-il en tonnes ? Indiquez des kilogrammes (par exemple ${n('1.2')} t = ${n(1200)} kg) ; s’il est exact, conservez-le.`,

    invalid_csv_header: (p) =>
      p.reason === 'both_separators'
        ? t`La première ligne se découpe en noms de colonnes aussi bien avec des virgules qu'avec des points-virgules. N'utilisez qu'un seul séparateur, par exemple filière;matériau;unité;quantité.`
        : `${t`La première ligne du fichier doit nommer les colonnes filière, matériau, unité et quantité (ou en anglais stream, material, unit, quantity), séparées par des points-virgules ou des virgules. Partez du modèle, ou ajoutez cette ligne au-dessus de vos chiffres.`}${p.tabs ? t` Le fichier semble séparé par des tabulations : enregistrez-le plutôt au format CSV.` : ''}`,
    unknown_column: (p) =>
      `${p.name === undefined ? t`Cette colonne n'est pas lue` : t`La colonne « ${p.name} »${p.column !== undefined ? ` (colonne ${p.column})` : ''} n'est pas lue`} par le service. ${t`Renommez-la filière, matériau, unité ou quantité (par exemple « Qté » devient quantité), ou supprimez-la.`}`,
    missing_column: (p) =>
      p.column
        ? t`Le fichier n'a pas de colonne ${column(p.column)}. Ajoutez-la à la première ligne, par exemple filière;matériau;unité;quantité.`
        : t`Il manque une colonne au fichier. Nommez-les toutes à la première ligne, par exemple filière;matériau;unité;quantité.`,
    duplicate_column: (p) =>
      `${p.column ? `La colonne ${column(p.column)}` : 'Une colonne'} apparaît ${p.count === undefined ? 'plusieurs fois' : `${n(p.count)} fois`}. ${t`Gardez-en une, et supprimez ou renommez les autres, pour que la première ligne se lise par exemple filière;matériau;unité;quantité.`}`,
    invalid_csv: (p) =>
      p.reason === 'quote_not_closed'
        ? t`Une cellule ouvre des guillemets qui ne sont jamais refermés. Refermez-les à la fin de la cellule ou retirez-les, par exemple Verre, bouteilles entre deux guillemets droits plutôt qu'après un seul. Un tableur place les guillemets pour vous quand il enregistre le fichier.`
        : t`Une cellule contient des guillemets placés comme aucun tableur ne les écrit. Ouvrez le fichier dans Excel ou LibreOffice et enregistrez-le de nouveau au format CSV : le tableur place les guillemets pour vous, par exemple autour d'une cellule Barquette « PET », dont il double les guillemets.`,
    too_many_rows: (p) =>
      t`Le fichier compte plus de ${n(p.max ?? 2001)} lignes, lignes vides comprises. Supprimez les lignes vides à sa fin (un tableur en enregistre parfois des milliers : sélectionnez-les à partir de la première ligne vide et supprimez-les), ou regroupez les matériaux sous leur catégorie, par exemple toutes les bouteilles et tous les pots en verre sous Verre.`,
    too_many_cells: (p) =>
      `${p.cells !== undefined && p.columns !== undefined ? `Cette ligne compte ${times(p.cells, 'cellule', 'cellules')}, mais la première ligne ne nomme que ${times(p.columns, 'colonne', 'colonnes')}.` : 'Cette ligne compte plus de cellules que la première ligne ne nomme de colonnes.'} ${t`Une cellule qui contient le séparateur (${p.delimiter === ';' ? 'point-virgule' : 'virgule'}) doit être entre guillemets droits, par exemple la cellule ${p.delimiter === ';' ? 'Barquettes;PET' : 'Barquettes, PET'} : enregistrez le fichier depuis un tableur, qui s'en charge pour vous.`}`,

    file_missing: () => 'Choisissez le fichier CSV à envoyer, par exemple le modèle rempli puis enregistré au format CSV.',

    number_empty: () => `Indiquez un nombre en chiffres, par exemple ${n('1200.5')}.`,
    number_has_unit: (p) => {
      const bare = (p.value ?? '').replace(/[^\d.,\s-]/g, '').trim();
      return `${t`Écrivez le nombre seul, sans unité ni symbole`}${bare ? t` : ${bare} plutôt que « ${p.value} »` : `, par exemple ${n('1200.5')}`}. ${t`L'unité se choisit à part.`}`;
    },
    number_scientific: (p) =>
      `${p.value === undefined ? 'Ce nombre est écrit' : t`« ${p.value} » est écrit`} ${t`en notation scientifique, qu'un tableur emploie, en arrondissant, quand une colonne est trop étroite. Élargissez la colonne ou appliquez le format Nombre aux cellules, puis enregistrez de nouveau ; ou écrivez le nombre en entier, par exemple`} ${n(1200000)}.`,
    number_grouping: (p) =>
      `${p.value === undefined ? t`Ce nombre n'est pas bien écrit` : t`« ${p.value} » n'est pas un nombre bien écrit`}${t` : les milliers vont par groupes de trois chiffres, par exemple ${n('1200000.5')} ou 1200000,5.`}`,
    number_ambiguous: (p) => {
      const reading = (p.asDecimal ?? '').replace('.', ',');
      // What to write: in the file's own notation when the file uses this separator for its decimals.
      const written = p.reason === 'other_places' && p.separator ? (p.asDecimal ?? '').replace('.', p.separator) : reading;
      const why =
        p.reason === 'mixed'
          ? 'et le fichier écrit les décimales tantôt avec une virgule, tantôt avec un point'
          : p.reason === 'other_places'
            ? t`et les autres nombres décimaux du fichier n'ont pas trois décimales`
            : t`et rien autour n'indique laquelle de ces lectures est la bonne`;
      const notation = written === reading ? '' : ` (avec ${p.separator === '.' ? 'un point' : 'une virgule'}, comme le reste du fichier)`;
      return t`« ${p.value ?? ''} » peut se lire ${p.asThousands ?? ''} ou ${reading}, ${why}. Écrivez ${p.asThousands ?? ''} dans le premier cas, ${written}${notation} dans le second, sans séparateur de milliers.`;
    },
    number_invalid: (p) =>
      `${p.value === undefined ? t`Ce n'est pas un nombre.` : t`« ${p.value} » n'est pas un nombre.`} Écrivez seulement des chiffres, avec une virgule ou un point pour les décimales, par exemple ${n('1200.5')}.`,
    ...productFields,
  },

  dashboard: {
    brand: 'Déclarations REP',
    skip: 'Aller au contenu',
    documentTitle: (title: string, error = false) => `${error ? 'Erreur – ' : ''}${title} · Tableau de bord`,
    nav: {
      label: 'Tableau de bord',
      overview: t`Vue d'ensemble`,
      tokens: t`Jetons d'API`,
      declarations: 'Déclarations',
      products: 'Produits',
    },
    signOut: 'Se déconnecter',
    software: 'Pour votre logiciel',
    languageSwitch: 'Langue',
    footer: {
      dashboard: 'Tableau de bord client',
      site: 'Site public',
      developers: 'Développeurs',
      api: t`Référence de l'API`,
    },
    buttons: {
      continue: 'Continuer',
      cancel: 'Annuler',
      back: 'Retour',
      backToDashboard: 'Retour au tableau de bord',
      change: 'Modifier',
    },
    errorSummary: {
      title: 'Il y a un problème',
      nothingStored: t`Rien n'a été enregistré.`,
      count: (count: number) => t`${times(count, 'point', 'points')} à corriger :`,
    },
    problemPage: {
      whatThisMeans: 'Ce que cela signifie',
      reference: 'Référence',
    },
    signIn: {
      title: 'Connexion',
      lead: t`Le tableau de bord permet aux équipes de votre entreprise d'obtenir des jetons d'API, de voir ce qui est à déclarer et de déposer leurs déclarations.`,
      signedOut: 'Votre session est terminée.',
      sessionEnded: 'Connectez-vous pour continuer.',
      emailLabel: 'Adresse électronique de votre compte',
      emailInvalid: 'Saisissez l’adresse électronique de votre compte, par exemple nom@exemple.fr.',
      submit: 'Recevoir un lien de connexion par courriel',
      sent: (email: string, minutes: number) =>
        t`Si ${email} est l'adresse d'un compte confirmé, un lien de connexion vous a été envoyé. Il ne fonctionne qu'une fois, pendant ${times(minutes, 'minute', 'minutes')}.`,
      mailOff: (minutes: number) =>
        t`La connexion par courriel est désactivée sur cette installation (aucun serveur de messagerie n'est configuré). Demandez un lien de connexion à l'opérateur : il ne fonctionne qu'une fois, pendant ${times(minutes, 'minute', 'minutes')}.`,
      operatorLink: t`Un lien de connexion reçu de l'opérateur ouvre directement votre tableau de bord.`,
    },
    link: {
      lead: t`Vous allez vous connecter au tableau de bord de votre entreprise.`,
      continue: t`Continuer vers le tableau de bord`,
      once: t`Le lien ne fonctionne qu'une fois : ensuite, reconnectez-vous avec un nouveau lien.`,
      failed: (minutes: number) =>
        t`Ce lien de connexion ne fonctionne pas : il a déjà servi, il a plus de ${times(minutes, 'minute', 'minutes')}, ou il n'a pas été copié en entier.`,
      askNew: 'Demander un nouveau lien',
      orOperator: t`ou en demander un à l'opérateur.`,
    },
  },

  files: {
    templateNote: t`Les lignes qui commencent par # sont des remarques et des exemples : elles ne sont jamais déclarées. Écrivez une ligne par filière, matériau et unité sous l'en-tête (recopiez un exemple sans son #), puis envoyez le fichier.`,
    report: {
      row: 'ligne',
      type: 'type',
      message: 'message',
      error: 'erreur',
      warning: 'avertissement',
      column: 'colonne',
      fileName: (name: string) => `rapport-erreurs-${name}.csv`,
    },
    columns: CSV_FILE_COLUMNS,
  },

  mail: {
    filed: {
      subject: (p: { period: string; receipt: string }) => t`Déclaration ${p.period} déposée : accusé de réception ${p.receipt}`,
      text: (p: {
        company: string;
        period: string;
        revision: number;
        receipt: string;
        name: string;
        at: string;
        lines: number;
        totals: readonly string[];
        /** Per stream whose units sold are stated: "EMB 90 000 UVC". */
        unitsSold: readonly string[];
        /** Per material count line of a stream whose units sold are not stated: "EMB, Verre : 95 000 UVC". */
        counts: readonly string[];
        url: string;
        /** The operator's address (CONTACT_EMAIL), when set. */
        contact: string | null;
        next: readonly string[];
      }) =>
        [
          'Bonjour,',
          '',
          t`La déclaration de ${p.company} pour le semestre ${p.period} a été déposée sur le tableau de bord des déclarations REP.`,
          '',
          t`Accusé de réception : ${p.receipt}`,
          t`Version : ${p.revision}`,
          t`Déclarée par : ${p.name}`,
          t`Déposée le : ${p.at}`,
          t`Lignes : ${n(p.lines)}`,
          ...p.totals.map((total) => t`Total : ${total}`),
          ...p.unitsSold.map((units) => t`Unités vendues : ${units}`),
          ...(p.counts.length > 0
            ? [
                t`Unités vendues non indiquées ; unités de vente consommateur (UVC) par matériau, qui ne s'additionnent pas (une unité dont l'emballage associe plusieurs matériaux compte pour chacun) :`,
                ...p.counts.map((count) => `- ${count}`),
              ]
            : []),
          '',
          t`Les deux semestres d'une année (S1 et S2) s'additionnent pour la déclaration annuelle. Pour corriger celle-ci, déposez-la de nouveau : la nouvelle version la remplace, et elle reste consultable.`,
          '',
          ...p.next,
          '',
          p.url,
          '',
          p.contact
            ? t`Si vous n'attendiez pas ce message, écrivez à l'opérateur : ${p.contact}`
            : t`Si vous n'attendiez pas ce message, prévenez l'opérateur.`,
          '',
        ].join('\n'),
    },
    signIn: {
      subject: 'Votre lien de connexion au tableau de bord des déclarations REP',
      text: (p: { clientId: string; minutes: number; url: string }) =>
        [
          'Bonjour,',
          '',
          t`Quelqu'un (vous, nous l'espérons) a demandé à se connecter au tableau de bord des déclarations REP du compte « ${p.clientId} ».`,
          '',
          t`Ouvrez ce lien pour vous connecter. Il ne fonctionne qu'une fois, pendant ${times(p.minutes, 'minute', 'minutes')} :`,
          '',
          p.url,
          '',
          t`Si vous n'avez rien demandé, ignorez ce message : rien ne se passe sans le lien.`,
          '',
        ].join('\n'),
    },
  },

  operator: {
    invitation: {
      subject: (p: { company: string }) => `Votre accès au tableau de bord des déclarations REP de ${p.company}`,
      text: (p: { company: string; clientId: string; url: string; until: string }) =>
        [
          'Bonjour,',
          '',
          t`Votre service de déclarations REP vous invite sur le tableau de bord de ${p.company} (compte « ${p.clientId} ») : vous y déposez vos déclarations semestrielles des emballages mis sur le marché et y gérez vos jetons d'API.`,
          '',
          t`Ouvrez ce lien pour vous connecter. Il ne sert qu'une fois, jusqu'au ${formatDateTime('fr', p.until)} :`,
          '',
          p.url,
          '',
          t`La page qui s'ouvre vous demande de confirmer avant de vous connecter. Si vous n'attendiez pas ce message, ignorez-le : rien ne se passe sans le lien.`,
          '',
        ].join('\n'),
    },
    reminder: {
      subject: (p: { company: string; period: string; due: string | null }) =>
        t`Rappel : déclaration REP de ${p.company} pour le ${halfYear(p.period)}${p.due ? t`, à déposer au plus tard le ${date(p.due)}` : ''}`,
      text: (p: {
        company: string;
        clientId: string;
        period: string;
        missing: { name: string; stream: string; due: string | null }[];
        url: string;
        until: string;
      }) =>
        [
          'Bonjour,',
          '',
          t`Sauf erreur de notre part, ${p.company} (compte « ${p.clientId} ») n'a pas encore déposé sa déclaration des emballages mis sur le marché au ${halfYear(p.period)} (${p.period}) pour :`,
          '',
          ...p.missing.map((m) => t`- ${m.name} (${m.stream})${m.due ? t` : à déclarer au plus tard le ${date(m.due)}` : ''}`),
          '',
          t`Pour la déposer, connectez-vous à votre tableau de bord avec ce lien. Il ne sert qu'une fois, jusqu'au ${formatDateTime('fr', p.until)} :`,
          '',
          p.url,
          '',
          t`Si vous l'avez déposée entre-temps, ne tenez pas compte de ce message.`,
          '',
        ].join('\n'),
    },
  },

  // The site's words are set in French typography as a whole (’, no-break spaces before : ; ? !).
  site: frenchWords({
    colon: '\u00a0:',
    langName: 'Français',
    serviceName: 'Déclarations REP emballages',
    skip: 'Aller au contenu',
    header: {
      signIn: 'Accéder à votre tableau de bord',
      nav: 'Principale',
    },
    contact: {
      write: 'Écrivez-nous',
      none: 'L’opérateur de ce service n’a pas encore indiqué d’adresse de contact.',
    },
    nav: {
      notFound: 'Page introuvable',
      home: 'Accueil',
      start: 'Pour commencer',
      pricing: 'Tarifs',
      streams: 'Filières',
      law: 'Textes',
      obligations: 'Obligations',
      abroad: 'Vendre depuis l’étranger',
      glossary: 'Glossaire',
      developers: 'Développeurs',
      problems: 'Erreurs',
      problem: 'Erreur',
    },
    titles: {
      notFound: 'Page introuvable',
      home: 'Déclarations REP emballages pour la France',
      start: 'Pour commencer',
      pricing: 'Tarifs',
      streams: 'Filières REP',
      law: 'Textes juridiques',
      obligations: 'Ce que doit faire un metteur sur le marché de produits emballés',
      abroad: 'Vendre en France depuis l’étranger',
      glossary: 'Glossaire',
      developers: 'Développeurs',
      problems: 'Types d’erreur',
      problem: 'Erreur',
    },
    intros: {
      start:
        'Vous mettez des produits emballés sur le marché français\u00a0: voici ce que le service fait pour vous, comment devenir client et ce qu’il faut préparer.',
      pricing: 'Les offres du service. Prix annuels, hors TVA. Ce ne sont pas des barèmes d’éco-organismes.',
      streams:
        'Les filières de responsabilité élargie du producteur (REP) qu’un client peut déclarer, avec leurs unités, catégories de matériaux, éco-organismes et base légale.',
      law: 'Textes français et européens sur la REP emballages, chacun avec sa référence, sa date, son statut, son adresse officielle et ses sources.',
      obligations:
        'Ce que doit faire un producteur qui met des produits emballés sur le marché français, avec base légale, échéances et sources.',
      glossary:
        'Les mots du service, un terme par notion, avec leur équivalent anglais\u00a0: les pages, le tableau de bord et les courriels emploient ceux-ci et aucun autre.',
      developers: 'Obtenir un jeton, et l’API en bref, avec des exemples à copier.',
      problems: 'Chaque erreur de l’API est un document application/problem+json dont le `type` est l’adresse d’une de ces pages.',
    },
    home: {
      lead: 'Déposez vos déclarations REP emballages par API, et consultez en données ouvertes les règles sur lesquelles elles reposent.',
      forWhom: 'Pour qui',
      forWhomText:
        'Les producteurs qui mettent des produits emballés sur le marché français, les vendeurs étrangers qui livrent en France et les places de marché, depuis leur ERP ou leurs outils vendeurs.',
      howToStart: 'Pour commencer',
      startButton: 'Pour commencer',
      startObligations: 'Voir ce que doit faire un metteur sur le marché d’emballages',
      startPlans: 'Choisir une offre',
      startClient: 'Devenir client',
      startApi: 'Connecter votre logiciel à l’API (développeurs)',
      json: 'les données (JSON)',
      plans: 'Offres',
      streams: 'Filières acceptées',
      data: 'Données de référence',
      dataText:
        'Chaque page ci-dessous est construite à partir du fichier JSON vers lequel elle pointe, en même temps et depuis les mêmes sources.',
      perYear: 'par an',
    },
    facts: {
      code: 'Code',
      name: 'Nom',
      nameOther: 'Nom anglais',
      price: 'Prix',
      vat: 'TVA',
      billing: 'Période de facturation',
      streams: 'Filières',
      included: 'Inclus',
      declarationsPerYear: 'Déclarations par an',
      apiAccess: 'Accès API',
      support: 'Assistance',
      legalItem: 'Base légale',
      ademeCode: 'Code ADEME',
      status: 'Statut',
      startDate: 'Date de début',
      declarableFrom: 'Déclarable à partir du',
      declarableFromBasis: 'Pourquoi cette date',
      units: 'Unités',
      materials: 'Catégories de matériaux',
      ecoOrganisms: 'Éco-organismes',
      role: 'Rôle',
      approval: 'Agrément',
      from: 'du',
      to: 'au',
      law: 'Textes',
      reference: 'Référence',
      date: 'Date',
      summary: 'Résumé',
      officialUrl: 'Adresse officielle',
      appliesTo: 'Concerne',
      legalBasis: 'Base légale',
      periodicity: 'Périodicité',
      deadline: 'Échéance',
      consequence: 'En cas de manquement',
      notes: 'Notes',
      verification: 'Vérification',
      sources: 'Sources',
      other: 'Autres champs',
      id: 'Identifiant',
      checked: 'Vérifié le',
      description: 'Description',
      filing: 'Déclaration',
      tiers: 'Niveaux de déclaration selon le nombre annuel',
      countUnit: 'Compté en',
      perYear: 'par an',
      tierFrom: 'de',
      tierBelow: 'à moins de',
      tierUp: 'et plus',
      fee: 'Montant',
      openToSmaller: 'Ouvert aux plus petits metteurs sur le marché',
      tradeOptions: 'Options pour certains métiers',
      trades: 'Pour',
      calendar: 'Calendrier',
      invoicing: 'Facturation',
      packagingCategories: 'Catégories d’emballages',
      reuseStatuses: 'Statuts de réemploi',
      idu: 'Identifiant unique (IDU)\u00a0: sa forme habituelle',
      pattern: 'Forme attendue (expression régulière)',
      example: 'Exemple',
      use: 'Usage',
    },
    values: {
      true: 'oui',
      false: 'non',
      producer: 'À la charge du producteur',
      eco_organism: 'À la charge de l’éco-organisme',
      null: 'non renseigné',
      unlimited: 'illimité',
      noDate: 'sans date',
      noDeadline: 'pas d’échéance fixe',
      official_text: 'texte officiel',
      secondary_source: 'source secondaire',
      unverified: 'non vérifié',
      active: 'active',
      upcoming: 'à venir',
      approved: 'Éco-organisme agréé',
      candidate: 'Candidat à l’agrément',
      in_force: 'en vigueur',
      annulled: 'annulé',
      once: 'une fois',
      annual: 'chaque année',
      ongoing: 'en permanence',
      per_sale: 'à chaque vente',
      excluded: 'HT',
      year: 'par an',
      notPublished: 'non publié',
      coordinating_body: 'Organisme coordonnateur',
      approval_not_verified: 'Candidat à l’agrément (agrément non vérifié)',
      flat_fee: 'forfait',
      simplified_declaration: 'déclaration simplifiée',
      detailed_declaration: 'déclaration détaillée',
      declaration: 'déclaration',
      per_transaction_rate: 'tarif par passage en caisse',
      collective_contract: 'contrat collectif',
      warning: 'un avertissement, jamais un refus',
    },
    about: {
      heading: 'À propos de ces données',
      dataBehind: 'Tout ce qui figure sur cette page provient d’un fichier ouvert\u00a0:',
      dataLink: 'les données de cette page',
      licenceLink: 'texte de la licence',
      file: 'Fichier',
      version: 'Version',
      updated: 'mise à jour le',
      licence: 'Licence\u00a0:',
      sources: 'Sources principales',
      disclaimer: 'Avertissement',
      verificationHelp:
        'Chaque fait porte un niveau de vérification : texte officiel (lu dans un texte officiel), source secondaire (lu dans une source secondaire seulement) ou non vérifié.',
    },
    footer: {
      data: 'Données du',
      licence: 'Données de référence sous licence',
      contact: 'Contact',
      notAdvice: 'Ceci n’est pas un conseil juridique : vérifiez les textes officiels.',
    },
    dev: {
      token: 'Obtenir un jeton',
      signIn: 'Une fois client, vous créez vos jetons depuis le tableau de bord\u00a0:',
      authText:
        'Chaque système client envoie son propre jeton dans l’en-tête « Authorization: Bearer <jeton> » (RFC 6750). Un jeton n’est affiché qu’une fois\u00a0; le service n’en conserve que l’empreinte SHA-256.',
      tokenText:
        'L’opérateur enregistre votre entreprise et vous envoie un lien de connexion à votre tableau de bord, où vous créez un jeton par système client (l’opérateur peut aussi les délivrer). Un jeton n’est affiché qu’une fois\u00a0: gardez-le dans votre coffre à secrets. Le service n’en conserve que l’empreinte SHA-256.',
      tokenShape:
        'Un jeton commence par eprc_, suivi de 32 lettres et chiffres, d’un tiret bas et d’une somme de contrôle de 6 caractères, pour que les scanners de secrets le repèrent.',
      inShort: 'L’API en bref',
      clientApi: 'API client',
      base: 'Adresse de base',
      auth: 'Authentification',
      endpoints: 'Routes',
      publicData: 'Fichiers publics (sans clé)',
      examples: 'Exemples',
      exRead: 'Lire un fichier de référence (sans clé) :',
      exMe: 'Votre compte :',
      exPost: 'Déposer une déclaration pour un semestre (réessayez sans risque avec la même Idempotency-Key) :',
      exList: 'Vos déclarations, les plus récentes d’abord :',
      errors: 'Erreurs',
      errorsText:
        'Chaque erreur est au format application/problem+json avec un code stable ; son type est l’adresse d’une page qui l’explique.',
      links: 'Documentation',
      swagger: 'Swagger UI : chaque route, schéma et erreur',
      openapi: 'Document OpenAPI',
      index: 'Document d’index',
      llms: 'llms.txt : le service en Markdown, pour les personnes et les modèles de langage',
      name: 'Service',
      apiNamed: 'dont l’API s’appelle',
      description: 'Description',
      markdown: 'Résumé Markdown',
      contact: 'Contact',
    },
    start: {
      whatHeading: 'Ce que le service fait pour vous',
      what: [
        'Il conserve vos chiffres par filière et par semestre\u00a0: pour chaque matériau, le poids en kilogrammes et, pour les emballages ménagers, le nombre d’unités de vente consommateur (UVC).',
        'Il les contrôle au regard des règles publiées (filières, matériaux, unités) avant de les enregistrer, et garde chaque version avec son accusé de réception.',
        'Il vous indique ce qui reste à déclarer, semestre par semestre, avec les échéances qui suivent.',
        'Vous retrouvez chaque déclaration en fichier tableur (CSV) ou par l’API.',
      ],
      becomeHeading: 'Devenir client',
      become: [
        'Choisissez l’offre qui couvre vos filières.',
        'Écrivez-nous en indiquant la raison sociale et le pays de votre entreprise, l’offre choisie, vos filières, vos identifiants uniques (IDU) et l’adresse électronique de la personne qui se connectera.',
        'Nous ouvrons puis confirmons votre compte\u00a0; la personne qui se connectera reçoit alors par courriel une invitation au tableau de bord, valable une seule fois, pendant 7\u00a0jours. Ensuite, un lien de connexion demandé sur la page de connexion est valable une seule fois, pendant 15\u00a0minutes.',
        'Depuis le tableau de bord, vous voyez ce qui est à déclarer, déposez vos déclarations par formulaire ou par fichier tableur, et créez des jetons d’API si vos logiciels les transmettent eux-mêmes.',
      ],
      seePricing: 'Voir les offres et leurs tarifs',
      needHeading: 'Ce qu’il vous faut',
      need: [
        'Votre identifiant unique (IDU) pour chaque filière.',
        'Les filières dont relèvent vos emballages (ménagers, professionnels).',
        'Pour chaque semestre et chaque filière, vos chiffres par matériau\u00a0: le poids en kilogrammes et, pour les emballages ménagers, le nombre d’UVC.',
        'L’adresse électronique professionnelle de la personne qui se connectera.',
      ],
      seeIdu: 'Comment obtenir un IDU',
      seeStreams: 'Les filières, leurs matériaux et leurs échéances',
      alreadyHeading: 'Déjà client\u202f?',
      developers: 'Vous raccordez votre ERP ou vos outils de vente\u00a0? Tout est sur la page',
    },
    streamPage: {
      toc: 'Filières sur cette page',
      inForce: 'En vigueur.',
      inForceSince: 'En vigueur depuis le',
      upcoming: 'Entrée en vigueur le',
      ended: 'Cette filière a pris fin\u00a0: elle couvre les quantités jusqu’au',
      thenDeclareIn: '\u202f; les quantités suivantes se déclarent dans la filière',
      code: 'Code dans vos fichiers',
      legalItem: 'Base légale',
      ofCode: 'du Code de l’environnement',
      ademeCode: 'Code à l’ADEME',
      whoFor: 'À savoir sur cette filière',
      when: 'Quand déclarer',
      declarableFrom: 'Le service prend les quantités de cette filière à partir du',
      upTo: 'et jusqu’au',
      forQuantitiesOf: 'Pour les quantités de',
      byDate: 'au plus tard le',
      noDeadlines: 'Aucune échéance n’est encore publiée pour cette filière.',
      changes: 'Ce qui a changé, et quand',
      eventStart: 'entrée en vigueur de la filière',
      eventFirst: 'premières quantités prises par le service pour cette filière',
      eventLast: 'dernier jour des quantités que couvre la filière',
      eventThen: '\u202f; les quantités suivantes se déclarent dans la filière',
      eventApproval: 'agréé jusqu’au',
      eventRenewal: 'agrément reconduit jusqu’au',
      eventRetired: (version: number) => `Version ${version} du catalogue, matériaux remplacés par des lignes plus fines`,
      runBy: 'Qui la gère',
      approvedFrom: 'du',
      approvedTo: 'au',
      filingAt: 'Déclarer chez',
      tiersBy: (unit: string) => `Ce que vous déclarez dépend du nombre d’${unit} que vous mettez sur le marché chaque année\u00a0:`,
      filingKind: 'Type de déclaration',
      unitCode: 'dans vos fichiers',
      tierFrom: 'à partir de',
      tierUnder: 'moins de',
      tierBetween: 'de',
      tierToUnder: 'à moins de',
      perYear: 'par an',
      fee: 'Montant',
      tradeOptions: 'Options pour certains métiers\u00a0:',
      calendar: 'Calendrier',
      invoicing: 'Facturation',
      units: 'Ce que vous déclarez',
      materials: 'Matériaux',
      retired: 'Ne sont plus acceptés\u00a0:',
      replacedBy: 'remplacé par',
      packagingCategories: 'Catégories d’emballages',
      reuseStatuses: 'Statuts de réemploi',
      law: 'Textes',
      iduExample: 'Par exemple',
      iduWarning: 'Le service signale un identifiant d’une autre forme, mais ne le refuse jamais.',
      unitHelp: 'Dans une ligne de déclaration, écrivez',
    },
    abroadPage: {
      toc: 'Questions sur cette page',
      why: 'Sur quoi repose la réponse',
      law: 'Textes',
      next: 'Et ensuite',
      obligations: 'Toutes les obligations d’un metteur sur le marché d’emballages, avec leurs échéances',
      start: 'Devenir client de ce service',
    },
    obligationPage: {
      toc: 'Obligations sur cette page',
      abroad: 'Vous vendez en France depuis l’étranger\u202f? Les questions dans l’ordre, avec une réponse selon votre cas',
      what: 'Ce qu’il faut faire',
      who: 'Qui est concerné',
      streams: 'Filières',
      when: 'Dans quel délai',
      noDeadline: 'Pas d’échéance fixe.',
      periodicity: 'Fréquence',
      law: 'En vertu de quel texte',
      noLaw: 'Aucun texte n’est publié pour cette obligation.',
      otherwise: 'Ce qui se passe sinon',
    },
    pricingPage: {
      streams: 'Filières',
      declarationsPerYear: 'déclarations par an',
      unlimitedDeclarations: 'Déclarations illimitées',
      apiAccess: 'Accès à l’API inclus',
      noApiAccess: 'Sans accès à l’API',
      howToBuy: 'Pour souscrire, voir',
      endedUntil: 'pour les périodes jusqu’au',
    },
    whoFiles: {
      heading: 'Qui déclare quoi à votre éco-organisme',
      youGive: 'Ce que vous donnez au service',
      operatorDoes: 'Ce que fait l’opérateur',
      youStillDo: 'Ce que vous faites vous-même',
      byWhen: 'Échéances',
    },
    lawPage: {
      toc: 'Textes sur cette page',
      dated: 'texte du',
      streams: 'Filières',
      official: 'Où le lire',
      status: { in_force: 'En vigueur', annulled: 'Annulé' } as Record<string, string>,
    },
    notFound: {
      title: 'Page introuvable',
      lead: 'Il n’y a pas de page à cette adresse. Elle a peut-être été mal saisie, ou la page a changé de place.',
      links: 'Vous pouvez aller\u00a0:',
    },
    problems: {
      status: 'Statut HTTP',
      code: 'Code',
      type: 'Type',
      title: 'Titre',
      what: 'Ce que cela signifie',
      todo: 'Que faire',
      all: 'Tous les types d’erreur',
      shape: 'Exemple',
    },
    /** What each problem type means and what to do, for the developers reading its page (/problems/<code>). */
    problemTypes: {
      bad_request: {
        what: 'La requête n’a pas pu être comprise, par exemple un chemin mal encodé.',
        todo: 'Lisez le détail, corrigez la requête et renvoyez-la.',
      },
      malformed_json: {
        what: 'Le corps n’est pas un JSON valide.',
        todo: 'Envoyez un document JSON (vérifiez guillemets, virgules et crochets) avec Content-Type: application/json.',
      },
      invalid_cursor: {
        what: 'Le paramètre cursor n’a pas été donné par ce service.',
        todo: 'Reprenez tel quel le next_cursor de la page précédente, ou recommencez sans curseur.',
      },
      missing_token: {
        what: 'La route exige un jeton et aucun n’a été envoyé.',
        todo: 'Envoyez l’en-tête Authorization: Bearer <jeton>. L’en-tête WWW-Authenticate indique le domaine.',
      },
      invalid_token: {
        what: 'Le jeton est inconnu, mal formé, expiré ou révoqué.',
        todo: 'Vérifiez que le jeton a été copié en entier ; demandez-en un nouveau à l’opérateur s’il a été révoqué ou a expiré.',
      },
      insufficient_scope: {
        what: 'Le jeton est valide mais pas pour cette route (un jeton client sur une route de l’opérateur).',
        todo: 'Utilisez les routes de l’API client, ou l’identifiant de l’opérateur pour ses routes.',
      },
      admin_api_disabled: {
        what: 'L’API de l’opérateur est désactivée sur cette instance (aucun identifiant d’opérateur configuré).',
        todo: 'L’opérateur configure ADMIN_TOKEN pour l’utiliser.',
      },
      session_required: {
        what: 'La page du tableau de bord demande d’être connecté, et vous ne l’êtes pas (ou votre session a pris fin : déconnexion, 30 minutes d’inactivité ou 12 heures d’ancienneté).',
        todo: 'Reconnectez-vous sur /dashboard/sign-in : avec un lien de l’opérateur, ou par e-mail.',
      },
      csrf_failed: {
        what: 'Un formulaire du tableau de bord a été envoyé sans le jeton de sécurité de sa page, ou avec un jeton périmé.',
        todo: 'Rechargez la page et renvoyez le formulaire. Les formulaires ne fonctionnent que depuis les pages de ce site.',
      },
      not_found: {
        what: 'Rien à cette adresse, ou l’enregistrement n’est pas le vôtre (celui d’un autre client est traité de la même façon).',
        todo: 'Vérifiez le chemin et l’identifiant.',
      },
      method_not_allowed: { what: 'Le chemin existe, mais pas avec cette méthode.', todo: 'Utilisez une des méthodes de l’en-tête Allow.' },
      conflict: {
        what: 'La requête est en conflit avec l’état actuel d’un enregistrement.',
        todo: 'Relisez l’enregistrement et décidez s’il faut réessayer.',
      },
      precondition_failed: {
        what: t`L'en-tête If-Match ne correspond pas à l'ETag actuel de l'enregistrement : il a changé depuis sa lecture. Rien n'a été modifié.`,
        todo: t`Relisez l'enregistrement (GET), refaites la modification sur son contenu actuel et renvoyez-la avec le nouvel ETag.`,
      },
      account_suspended: {
        what: t`Le jeton ou la session est valide, mais l'opérateur a suspendu le compte de l'adhérent.`,
        todo: t`Contactez l'opérateur : les mêmes jetons fonctionneront de nouveau dès la réactivation du compte.`,
      },
      idempotency_key_in_flight: {
        what: 'Une requête avec la même Idempotency-Key est encore en cours.',
        todo: 'Attendez le nombre de secondes de Retry-After et renvoyez la même requête : vous recevrez la première réponse.',
      },
      payload_too_large: {
        what: 'Le corps dépasse 1 Mio, ou contient trop d’objets et de tableaux JSON.',
        todo: 'Découpez les données en requêtes plus petites (une déclaration compte au plus 1 000 lignes).',
      },
      unsupported_media_type: { what: 'Le corps n’est pas du JSON.', todo: 'Envoyez Content-Type: application/json.' },
      validation_failed: {
        what: 'Le corps ou la requête enfreint une ou plusieurs règles. Le tableau errors liste tous les problèmes à la fois, chacun avec un pointeur JSON, un détail et un code stable. Rien n’a été enregistré.',
        todo: 'Corrigez chaque champ listé et renvoyez la requête.',
      },
      idempotency_key_reused: {
        what: 'L’Idempotency-Key a déjà servi avec un autre corps dans les dernières 24 heures.',
        todo: 'Prenez une nouvelle clé pour une nouvelle requête ; ne réutilisez une clé que pour réessayer la même requête.',
      },
      rate_limited: {
        what: 'Trop de requêtes avec ce jeton dans la minute en cours.',
        todo: 'Attendez le nombre de secondes de Retry-After ; les en-têtes RateLimit indiquent votre budget.',
      },
      internal_error: {
        what: 'Une erreur inattendue de notre côté. La réponse ne porte que l’identifiant de la requête.',
        todo: 'Réessayez plus tard ; si cela persiste, envoyez l’instance (identifiant de requête) à l’adresse de contact.',
      },
      service_unavailable: {
        what: 'Le service n’arrive pas à joindre sa base de données pour le moment.',
        todo: 'Réessayez après le nombre de secondes de Retry-After.',
      },
    },
    /** L’environnement de test : jetons de test, remise à zéro, et les exemples qui marchent avec eux (/fr/developers). */
    sandbox: {
      title: 'Tout essayer d’abord dans votre environnement de test',
      text: 'Créez un jeton de test sur la page « Jetons d’API » de votre tableau de bord (choisissez « Jeton de test »), ou demandez-en un à l’opérateur : il commence par eprt_ au lieu de eprc_, pour que vous et votre détecteur de secrets le reconnaissiez au premier coup d’œil, et ses réponses, comme vos déclarations de test, indiquent "mode": "test". Avec un jeton de test, chaque appel fonctionne exactement comme avec un jeton de production, mais sur vos seules données de test. Vos déclarations de test sont conservées d’un appel à l’autre, pour tester des parcours complets (dépôt, correction, liste, téléchargement) ; leur accusé de réception commence par TEST- ; elles ne sont jamais transmises, l’opérateur ne les voit pas, vos jetons de production non plus (et un jeton de test ne voit pas vos déclarations réelles). L’environnement de test a son propre quota de requêtes : vos essais ne ralentissent jamais votre trafic de production.',
      issue:
        'L’opérateur délivre un jeton de test avec le corps {"mode": "test"} sur POST /api/v1/admin/clients/{client_id}/tokens. Le tableau de bord ne montre que vos données réelles.',
      wipe: 'Repartir de zéro : effacez vos données de test (avec un jeton de test uniquement ; un jeton de production reçoit une erreur 403 et rien n’est supprimé).',
      examplesIntro: 'Chaque commande ci-dessous fonctionne telle quelle : mettez votre jeton de test dans EPR_TOKEN et lancez-la.',
      exPost:
        'Déposer la déclaration d’un semestre. Les emballages ménagers se déclarent, pour chaque matériau, en kilogrammes (kg) et en unités de vente consommateur (UVC, code « uvc » dans les fichiers). Renvoyée avec la même Idempotency-Key, elle donne la première réponse :',
      exCsv:
        'La même chose depuis un tableur enregistré en CSV, le semestre dans l’adresse (ici des chiffres corrigés : version 2 du semestre) :',
    },
  }),

  products: {
    nav: 'Produits',
    title: 'Produits et emballages',
    lead: t`Vos produits avec leurs emballages, et les UVC vendues chaque semestre : le service en calcule la déclaration. Chaque version d'un produit s'applique à partir d'un semestre, jusqu'à une version ultérieure.`,
    uploadProducts: 'Importer le catalogue de produits',
    uploadProductsHint: t`Un fichier CSV, une ligne par élément d'emballage : référence, désignation, filière, gtin (facultatif), à partir de (le semestre, par exemple 2026-S1), matériau, poids (g), nombre par UVC et, pour les emballages professionnels, catégorie d'emballage et statut de réemploi. Séparateur point-virgule ou virgule ; en-têtes anglais acceptés.`,
    uploadSales: t`Importer les ventes d'un semestre`,
    uploadSalesHint: t`Un fichier CSV avec les colonnes référence et unités vendues : le nombre d'UVC mises sur le marché français pendant le semestre.`,
    file: 'Fichier CSV',
    period: 'Semestre',
    periodHint: 'AAAA-S1 (janvier à juin) ou AAAA-S2 (juillet à décembre).',
    send: 'Importer',
    nothingStored: t`Rien n'a été enregistré.`,
    problems: (count: number) => (count === 1 ? t`Un point à corriger :` : t`${n(count)} points à corriger :`),
    imported: (created: number, replaced: number, unchanged: number) =>
      t`Catalogue mis à jour : ${n(created)} ${plural('fr', created, { one: 'nouvelle version', other: 'nouvelles versions' })}, ${n(replaced)} ${plural('fr', replaced, { one: 'remplacée', other: 'remplacées' })}, ${n(unchanged)} sans changement.`,
    salesRecorded: (count: number, period: string) =>
      t`Ventes enregistrées pour ${period} : ${n(count)} ${plural('fr', count, { one: 'produit', other: 'produits' })}.`,
    empty: t`Aucun produit pour le moment : importez votre catalogue.`,
    reference: 'Référence',
    name: 'Désignation',
    stream: 'Flux',
    validFrom: 'À partir de',
    packaging: 'Emballage (une UVC)',
    filed: 'utilisée par une déclaration déposée',
    element: (material: string, grams: string, perUnit: number) => `${perUnit} × ${material} de ${grams} g`,
    derivedTitle: (period: string) => `Déclaration calculée pour ${period}`,
    derivedLink: 'Voir la déclaration calculée pour un semestre',
    unitsSold: (stream: string, quantity: string) =>
      t`Unités vendues (UVC), ${stream} : ${quantity}, chaque produit une seule fois quels que soient ses matériaux ; c'est ce chiffre, et non la somme de la colonne UVC, qui est déposé comme unités vendues.`,
    derivedLead: t`Calculée à partir de votre catalogue et de vos ventes : pour chaque matériau, kg = UVC × nombre d'éléments par UVC × grammes ÷ 1 000, arrondi au gramme sur la ligne ; chaque UVC qui comporte le matériau est comptée une fois. Rien n'est déposé avant votre confirmation ci-dessous.`,
    noSales: t`Aucune vente n'est enregistrée pour ce semestre.`,
    material: 'Matériau',
    kg: 'kg',
    kgExact: 'kg exacts',
    uvc: 'UVC',
    products: 'Produits',
    contribution: (reference: string, units: string, kg: string) => t`${reference} : ${units} UVC, ${kg} kg`,
    contributionsOmitted: (products: string, max: string) =>
      t`${products} produits composent ces lignes : au-delà de ${max}, cette page n'affiche que les totaux. Votre logiciel peut lire la part de chaque produit par l'API (derived-declaration/contributions).`,
    fileDeclaration: 'Vérifier cette déclaration',
    fileHint: t`Elle devient une nouvelle version de la déclaration du semestre, comme une déclaration saisie à la main ; les produits et les ventes utilisés sont enregistrés avec elle.`,
    lastFiled: (revision: number, receipt: string) =>
      t`Dernier dépôt à partir du catalogue : version ${revision}, accusé de réception ${receipt}.`,
    show: 'Afficher',
    located: (position: string | null, message: string) => (position ? t`${position} : ${message}` : message),
  },

  /** The dashboard's pages: dashboard-pages.fr.ts. */
  dashboardPages: dashboardPagesFr,

  /** La console de l'opérateur : operator-pages.fr.ts. */
  operatorPages: operatorPagesFr,
} satisfies Messages;
