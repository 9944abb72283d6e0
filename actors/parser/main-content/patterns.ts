/**
 * The vocabulary of main-content detection: which tags never carry content, which tags and
 * ARIA roles are page furniture, which class/id words hint at boilerplate or at an article,
 * and which short texts (in several languages) head boilerplate sections. General web
 * conventions only — nothing here names a site.
 */

/** Tags removed with their content before anything else: never readable text. */
export const NON_CONTENT_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'applet',
  'map', 'audio', 'video', 'source', 'track', 'input', 'select', 'textarea', 'button', 'option',
  'link', 'meta', 'dialog', 'head', 'title', 'base', 'figcaption',
]);

/** Structural page furniture by tag. */
export const FURNITURE_TAGS = new Set(['nav', 'footer', 'aside', 'menu', 'header']);

/** ARIA roles of page furniture. */
export const FURNITURE_ROLES = new Set([
  'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar', 'dialog',
  'alertdialog', 'toolbar', 'tablist',
]);

/** Block-level tags: they separate lines of text and end paragraphs. */
export const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl',
  'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',
  'hgroup', 'hr', 'html', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption', 'ul', 'br', 'picture', 'noscript',
]);

export const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * Class/id words of boilerplate containers, matched against the lower-cased `class id`
 * string as whole words (`-`, `_` and spaces separate words). A `FURNITURE_CLASS` element is
 * removed unless it carries most of the page's prose; a `BOILERPLATE_CLASS` element only when
 * it carries little prose or mostly links (a `section--ads` full of prose is content).
 * A forum post's author card (join date, post count, rank: `message-userExtras`,
 * `userTitle`, `userBanner`) and signature are furniture too; `signature` only where it
 * ends a class name (`message-signature`, `ipsEntry__signature`, `postsignature`):
 * `e-signature-apis` names a product's section.
 */
export const FURNITURE_CLASS =
  /(?:^|[\s_-])(?:comments?|comment-?(?:list|area|form|respond|section|s?wrap(?:per)?|thread)|commentlist|respond|disqus|cookies?|cookie-?(?:banner|notice|consent|bar)|consent|gdpr|cmpbox|cmpwrapper|newsletter|share|sharing|shares|social|sociable|socials|social-?(?:media|links|icons|bar)|share-?(?:bar|buttons|links|tools|box)|sharedaddy|related|relateds|related-?(?:posts|articles|content|stories|links)|relatedposts|jp-relatedposts|outbrain|taboola|breadcrumbs?|skip-?link|sidebar|side-?bar|widget-?area|popup|modal|dialog|lightbox|overlay|login|navigation|navbar|nav|menu|mainmenu|submenu|footer|colophon|reply|masthead|topbar|top-?nav|site-?header|header-?nav|author-?(?:bio|box|info|description|card|section|profile|details|about|container)|about-?(?:the-?)?author|entry-author-info|customer-?reviews?|product-?reviews|yotpo|jdgm|stamped-?reviews?|okendo|loox|feefo|user-?(?:extras?|title|banner|stats)|extrauserinfo|profile-(?:posts|joined|rank|custom-field|contact)|(?:post|user)?signature(?:s|-?container)?(?=$|\s))(?=$|[\s_-])/;

/**
 * The consent-manager words of `FURNITURE_CLASS`: a cookie banner or preference centre is
 * never the page's content, however much of its text it holds (a short forum thread under
 * a consent manager's long list of purposes and vendors).
 */
export const CONSENT_CLASS = /(?:^|[\s_-])(?:consent|gdpr|cmpbox|cmpwrapper|cookie-?(?:banner|notice|consent|bar))(?=$|[\s_-])/;

/** The comment words of `FURNITURE_CLASS`: on a thread page (prune.ts level `thread`) the posts wear them. */
export const COMMENT_CLASS = /(?:^|[\s_-])(?:comments?|comment-?(?:list|area|section|s?wrap(?:per)?|thread)|commentlist|reply)(?=$|[\s_-])/;

export const BOILERPLATE_CLASS =
  /(?:^|[\s_-])(?:advert(?:isement)?s?|ad-?(?:slot|unit|container|wrapper|banner|box)|ads|adsbygoogle|sponsor(?:ed)?|promo|paywall|subscribe|subscription|signup|post-?(?:tags|meta(?:data)?|nav(?:igation)?)|entry-?(?:meta|footer|tags|utility)|article-?(?:tags|meta|footer)|tag-?(?:list|cloud|links)|tags|pagination|pager|prev-?next|next-?prev|print(?:-?(?:link|button))?|search(?:-?(?:form|box))?|rating|byline|dateline|kicker|tagline|dek|standfirst|sub-?head|caption|img-?caption|image-?caption|image-?(?:subtitle|description|desc)|imagedescription|wp-caption-text|legend|credits?|image-?source|photo-?credit|copyright|disclosure|captcha|bildunterschrift|bildnachweis|secondary|cta|recent|recommend(?:ed|ations?)?|read-?more|more-?(?:articles|stories|news)|widget|toolbar)(?=$|[\s_-])/;

/**
 * A class word naming a caption or a credit in camel case ("InlineImage-imageEmbedCaption",
 * "newsCaption", "imageEmbedCredit"), which the lower-cased hint cannot split: tested on the
 * class as written.
 */
export const CAMEL_CAPTION = /[a-z0-9](?:Caption|Credits?)(?=$|[\s_-])/;

/** Either kind of negative class/id hint. */
export const STRONG_NEGATIVE = new RegExp(`${FURNITURE_CLASS.source}|${BOILERPLATE_CLASS.source}`);

/** Weaker hints: removed only as small, link-heavy or short blocks (see prune.ts). */
export const WEAK_NEGATIVE =
  /(?:^|[\s_-])(?:meta|metadata|info|date|time|author|tools|utility|links|widget|teaser|aside|extra|secondary|banner|hidden|caption-credit|credits?|copyright|legal|disclaimer|contact|sitemap|trending|popular|most-?(?:read|viewed|popular)|latest|headlines|bottom|top)(?=$|[\s_-])/;

/** Class/id words of article containers. */
export const POSITIVE =
  /(?:^|[\s_-])(?:article|articlebody|article-?(?:body|content|text)|body|content|entry|entry-?content|hentry|main|page|post|post-?(?:body|content|text|entry)|text|blog|story|story-?body|prose|markdown|rich-?text|instapaper_body|single|detail)(?=$|[\s_-])/;

/** Class names of the usual article-body containers (on an article, div, section or main). */
const ARTICLE_BODY_CLASSES: readonly string[] = [
  'post-content', 'post_content', 'post-body', 'post-entry', 'postentry', 'post-text', 'post_text', 'postcontent',
  'entry-content', 'entry_content', 'entry-body', 'article-content', 'article__content', 'article-body',
  'article__body', 'articlebody', 'article_body', 'article-text', 'article__text', 'articletext', 'story-body',
  'story-content', 'storycontent', 'blog-content', 'blog-post-content', 'single-content', 'content-body',
  'body-text', 'text-content', 'news-content', 'news-text', 'rich-text', 'richtext', 'field--name-body',
];

/**
 * Selectors of the usual article-body containers, best first (trafilatura's BODY_XPATH
 * idea, written as CSS). The first one holding enough prose is a strong candidate.
 * select.ts matches them in one walk (`articleRank`); this list is their definition.
 */
export const ARTICLE_SELECTORS: readonly string[] = [
  '[itemprop="articleBody"], [itemprop="articlebody"]',
  ARTICLE_BODY_CLASSES.map((c) => `article.${c}, div.${c}, section.${c}, main.${c}`).join(', '),
  'article',
  '[role="main"], main',
];

const ARTICLE_BODY_CLASS_SET: ReadonlySet<string> = new Set(ARTICLE_BODY_CLASSES);
const ARTICLE_BODY_TAGS: ReadonlySet<string> = new Set(['article', 'div', 'section', 'main']);

/**
 * Every `ARTICLE_SELECTORS` entry an element (lower-case tag name `tag`, attributes
 * `attribs`) matches, as a bit set (bit i: selector i), without the selector engine.
 */
export function articleRanks(tag: string, attribs: Readonly<Record<string, string>>): number {
  let bits = 0;
  const itemprop = attribs['itemprop'];
  if (itemprop === 'articleBody' || itemprop === 'articlebody') bits |= 1;
  const cls = attribs['class'];
  if (cls && ARTICLE_BODY_TAGS.has(tag)) {
    for (const c of cls.split(/[ \t\n\f\r]+/)) {
      if (ARTICLE_BODY_CLASS_SET.has(c)) {
        bits |= 2;
        break;
      }
    }
  }
  if (tag === 'article') bits |= 4;
  if (tag === 'main' || attribs['role'] === 'main') bits |= 8;
  return bits;
}

/**
 * Short texts that head (or are) boilerplate blocks: related links, comments, sharing,
 * newsletters, legal lines. Matched against a whole short block, case-insensitive.
 */
export const BOILERPLATE_HEADINGS = new RegExp(
  '^(?:' +
    [
      // English
      'related(?: (?:posts?|articles?|stories|content|news|topics|reading))?', 'you (?:may|might) also (?:like|enjoy|be interested in)',
      'more (?:from|on|in|about|stories|articles|news)\\b.*', 'read (?:more|next|also)\\b.*', 'recommended(?: for you)?', 'most (?:popular|read|viewed)',
      'popular (?:posts|articles)', 'recent (?:posts|articles|comments)', 'latest (?:posts|news|articles)', 'trending(?: now)?', '(?:leave|post) a (?:reply|comment)', 'join the (?:conversation|discussion)', 'no comments(?: yet)?', 'comments? (?:are )?closed',
      'was (?:this|the) (?:article|page|post|information) (?:helpful|useful)', 'did you (?:find|like) this (?:article|page|post)(?: helpful| useful)?', '(?:next|previous) (?:post|article|story)',
      '\\d* ?(?:comments?|responses?|replies)(?: \\(\\d+\\))?', 'share(?: this(?: (?:post|article|story))?| on)?:?', 'follow us.*', 'tags?:?', 'categories:?',
      'about the author', '.{0,30}newsletter.{0,30}', 'sign up.*', 'subscribe.*', 'advert(?:isement)?', 'sponsored(?: content)?', 'see also',
      'don[\'’]?t miss', 'most (?:popular|read|viewed|shared) (?:in|on|from) .{1,30}', 'tell us what you think.*', '(?:like|enjoy(?:ed)?) this (?:story|article|post)\\b.*',
      // German
      'ähnliche (?:beiträge|artikel|themen)', 'verwandte (?:beiträge|artikel|themen)', 'mehr (?:zum thema|aus|zu|von|artikel)\\b.*', 'weitere (?:artikel|beiträge|themen|nachrichten|informationen|meldungen)\\b.*',
      '.{0,25}könnte (?:sie|dich|ihnen|dir) (?:auch )?(?:interessieren|gefallen)', 'auch interessant', 'lesen sie auch\\b.*', 'lies auch', 'auch lesen', 'empfehlungen?', 'meistgelesen(?:e)?(?: artikel)?', 'meist gelesen',
      'neueste (?:beiträge|artikel|kommentare)', 'aktuelle (?:beiträge|artikel|nachrichten)', 'top-?themen', '(?:schreibe|hinterlasse|verfasse)(?: jetzt)? (?:einen|deinen|ihren) kommentar', 'kommentar(?:e|ieren)?(?: (?:verfassen|schreiben|anzeigen|hinzufügen))?(?: \\(\\d+\\))?', 'kommentieren',
      '(?:war|ist) (?:der|dieser|die|diese) (?:artikel|beitrag|seite|informationen?) (?:hilfreich|nützlich)', '(?:möchten sie )?(?:den|diesen) (?:artikel|beitrag) teilen', 'entdecke(?:n sie)? (?:weitere|mehr)\\b.*', '(?:vorschau auf den )?nächsten? (?:artikel|beitrag)', 'vorherige[nrm]? (?:artikel|beitrag)',
      'teilen(?: sie (?:dies|diesen artikel))?(?: mit)?:?', 'beitrag teilen', 'artikel teilen', 'folgen sie uns.*', 'folge uns.*', 'schlagw(?:o|ö)rter:?', 'schlagworte:?', 'kategorien:?',
      'über den autor', 'zum autor', 'newsletter abonnieren', 'abonniere unseren newsletter', 'anzeige', 'werbung', 'zurück zur übersicht', 'nach oben', 'drucken',
      // French, Spanish, Italian, Polish, Dutch
      'articles similaires', 'à lire aussi', 'lire aussi', 'sur le même sujet', 'partager(?: cet article)?', 'commentaires?', 'laisser un commentaire',
      'artículos relacionados', 'noticias relacionadas', 'te puede interesar', 'comentarios', 'deja un comentario', 'compartir',
      'articoli correlati', 'potrebbe interessarti', 'commenti', 'lascia un commento', 'condividi',
      'zobacz (?:też|także|również)', 'czytaj (?:też|także|również)', 'dowiedz się więcej', 'komentarze', 'udostępnij', 'gerelateerde artikelen', 'lees ook', 'reacties', 'delen',
      '(?:você|voce) (?:também )?(?:pode|poderá|vai) gostar(?: também)?', '(?:leia|veja) (?:também|mais)', 'notícias relacionadas', 'artigos relacionados', 'posts relacionados', 'comentários', 'deixe (?:um|seu) comentário', 'compartilhe(?: isso)?',
      'temas relacionados', 'contexto de la noticia', 'valora esta noticia', 'video recomendado', 'te recomendamos', 'más noticias',
      'verwandte themen(?:bereiche)?', 'mehr themen', 'schon gelesen', 'noch mehr infos.*', 'lust auf mehr', 'keine kommentare\\b.*', 'diese seite teilen', 'news teilen',
      'zum newsletter anmelden', 'jetzt registrieren', 'kontakt', 'weiterführende (?:informationen|links)', 'weitere informationen', 'weitere links', 'links zum thema',
      'mehr zum thema', 'zum thema', 'dazu passend', 'passend dazu',
    ].join('|') +
    ')$',
  'i',
);

/**
 * A short line opening with one of these labels is a "read also" teaser or a tags line when
 * the rest is mostly links ("Lea también: …", "Lesen Sie auch: …", "VEA TAMBIÉN: …", "DON'T
 * MISS" and three headlines, "Tags: …").
 */
export const READ_ALSO_PREFIX =
  /^(?:lea(?: también| más)?|vea también|mira|mire|le puede interesar|puede interesarte|puedes ver|te puede interesar|lesen sie (?:auch|mehr|hier)|lies auch|auch lesen|mehr dazu|mehr zum thema|weiterlesen|siehe auch|read (?:more|also|next)|see also|related|lire aussi|à lire aussi|voir aussi|leggi anche|czytaj (?:też|także|również)|zobacz (?:też|także|również)|see more|must read|also read|tags?|tagged(?: with)?|topics|keywords|palavras-chave|etiquetas|mots-clés|schlagw(?:o|ö)rter)\b\s*[:：»›>-]|^don['’]?t miss/i;

/**
 * Short lines that are article furniture rather than text: datelines, bylines, update
 * stamps, photo credits, sources ("Von Anna Muster", "Aktualisiert: 03.04.2020", "Foto: dpa").
 */
export const META_LINE =
  /^(?:(?:von|by|par|por|di|autor(?:in|en)?|author|posted|published|veröffentlicht|aktualisiert|updated|erstellt|zuletzt|last (?:updated|modified)|letzte änderung|stand|foto|fotos|bild|bilder|photo|photos|image|quelle|source|fuente|źródło|credits?|crédits?(?: photos?)?|©|copyright|release date|publicado|publié|opublikowano)\b\s*[:：]?|\(?©)/i;

/**
 * The labels of a post's meta line ("05/10/2018 - Publicado por: Clarissa Borba - Categoria:
 * Saúde - Tags: …"): two of them with their colons make a line furniture wherever they stand.
 */
export const META_LABEL =
  /\b(?:posted by|published by|written by|publicado por|postado por|escrito por|publié par|veröffentlicht von|category|categories|categoria|categoría|catégorie|kategorie|filed under|tags|etiquetas|author|autor|auteur|date|data|fecha)\s*:/gi;

/** The agency or library that a photo credit ends with ("Natalie Naccache | Bloomberg | Getty Images"). */
export const PHOTO_AGENCY = /^(?:getty images|shutterstock|ap|ap photo|ap images|afp|reuters|istock|istockphoto|alamy|epa|epa-efe|bloomberg|dpa|picture alliance|imago)$/i;

/**
 * The closing lines of a news story that credit its makers ("Reporting by …; Editing by …",
 * "Additional reporting by …", "… contributed to this report.").
 */
export const CREDIT_LINE =
  /^(?:(?:with )?(?:additional )?reporting by|(?:editing|edited|writing|written) by .{0,200}\b(?:editing|edited) by)\b|\bcontributed (?:reporting )?(?:to )?(?:this|the) (?:report|story|article)\.?$/i;

/**
 * How to reach the writer or follow the publication ("Write to … at …", "Email … at …",
 * "Have a tip? …", "Follow us …"): such an opening only counts with an address, a handle
 * or two social networks in the line, after the story's last paragraph (clean.ts).
 */
export const CONTACT_OPENING = /^(?:write to|e-?mail|reach|have a (?:news )?tip|follow)\b/i;
export const CONTACT_ADDRESS = /@[a-z0-9_]|twitter\.com\//i;
export const SOCIAL_NETWORK = /\b(?:twitter|facebook|instagram|youtube|linkedin|tiktok|threads)\b/gi;

/**
 * A line asking the reader to sign up for a newsletter or a channel ("Sign up for the free
 * daily newsletter.", "Subscribe to NJ.com's newsletters", "Subscribe to the 9to5Toys YouTube
 * Channel for …").
 */
export const NEWSLETTER_PROMPT = /\b(?:sign up|subscribe|register)\b[^!?]{0,80}\b(?:newsletters?|youtube channel)\b/i;

/** The whole text of a control of a page's furniture: a photo caption's toggles, a text-size button. */
export const CONTROL_LINE = /^(?:caption|close|caption close|(?:show|hide|toggle) caption|text size|enlarge (?:this )?(?:image|photo))$/i;

/** A line that is only a date and/or time ("23.10.2018", "3. April 2020, 19:49 Uhr", "19:49"). */
export const DATE_LINE =
  /^[\s(|,–-]*(?:(?:(?:mo|di|mi|do|fr|sa|so|mon|tue|wed|thu|fri|sat|sun)[a-z]*|(?:segunda|terça|terca|quarta|quinta|sexta)(?:-feira)?|sábado|domingo|lunes|martes|miércoles|jueves|viernes)\.?,?\s*)?(?:\d{1,4}[./-]\s?\d{1,2}[./-]\s?\d{2,4}|\d{1,2}\.?\s+[a-zäéû]+\.?\s+\d{4}|\d{1,2}\s+de\s+[a-zçé]+\s+de\s+\d{4}|[a-zäéû]+\.?\s+\d{1,2},?\s+\d{4}|\d{1,2}:\d{2})(?:[\s,|–-]+(?:um\s+|às\s+|a las\s+|at\s+)?\d{1,2}[:.]\d{2}(?:\s*(?:uhr|h|am|pm|a\.m\.|p\.m\.))?(?:\s+(?:[ecmp][sd]?t|gmt|utc|bst|cet|cest))?)?[\s)|,–-]*$/i;
